//! `--shard I/N`: a deterministic share of the manifest, by a stable hash of each id, so N
//! machines with the same manifest cover it exactly once.

use crate::error::Error;
use crate::finding::excerpt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u64,
    pub count: u64,
}

/// Most shards accepted: far beyond any Actions matrix (256 jobs).
const MAX_SHARDS: u64 = 10_000;

impl Shard {
    pub fn parse(text: &str) -> Result<Self, Error> {
        let bad = || {
            Error::Usage(format!(
                "--shard {:?}: expected I/N with 1 <= I <= N <= {MAX_SHARDS}, such as 2/5",
                excerpt(text, 30)
            ))
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Self { index, count })
    }

    pub fn contains(&self, id: &str) -> bool {
        fnv1a64(id.as_bytes()) % self.count == self.index - 1
    }

    pub fn label(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }
}

/// 64-bit FNV-1a: fixed constants, the same on every machine and every release (unlike
/// std's randomly seeded hasher).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn every_id_falls_in_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=3).map(|i| Shard { index: i, count: 3 }).collect();
        let mut sizes = [0usize; 3];
        for n in 0..300 {
            let id = format!("server-{n}");
            let hits: Vec<usize> = (0..3).filter(|&s| shards[s].contains(&id)).collect();
            assert_eq!(hits.len(), 1, "{id}");
            sizes[hits[0]] += 1;
        }
        assert!(sizes.iter().all(|&s| s > 50), "a lopsided split: {sizes:?}");
    }

    #[test]
    fn parses_and_rejects_shard_specs() {
        assert_eq!(
            Shard::parse("2/5").expect("ok"),
            Shard { index: 2, count: 5 }
        );
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "1/100000"] {
            let e = Shard::parse(bad).expect_err(bad).message().to_string();
            assert!(e.starts_with("--shard"), "{e}");
        }
    }
}
