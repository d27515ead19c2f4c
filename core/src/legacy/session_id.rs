//! `Mcp-Session-Id` values for legacy Streamable HTTP sessions, optionally naming the cluster
//! node that holds the session so that a balancer can route by it.

/// A cluster node's name, put at the front of the session ids the node mints
/// (`<node>.<32 hex digits>`), so that a balancer that reads only request headers (a stock
/// nginx `map` on `Mcp-Session-Id`) sends every request of a session to its node: 1 to 32
/// characters of `a`–`z`, `0`–`9` and `-`.
///
/// ```
/// use snodo_core::legacy::NodeName;
///
/// assert_eq!(NodeName::new("node-a").unwrap().as_str(), "node-a");
/// assert!(NodeName::new("Node A").is_err());
/// assert!(NodeName::new("").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeName {
    bytes: [u8; NodeName::MAX_LEN],
    len: u8,
}

/// A node name outside `[a-z0-9-]{1,32}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InvalidNodeName;

impl core::fmt::Display for InvalidNodeName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a node name is 1 to 32 characters of a-z, 0-9 and -")
    }
}

impl core::error::Error for InvalidNodeName {}

impl NodeName {
    /// The longest name.
    pub const MAX_LEN: usize = 32;

    /// `name`, checked.
    pub fn new(name: &str) -> Result<Self, InvalidNodeName> {
        Self::from_bytes(name.as_bytes()).ok_or(InvalidNodeName)
    }

    fn from_bytes(name: &[u8]) -> Option<Self> {
        let valid = |b: &u8| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-');
        if name.is_empty() || name.len() > Self::MAX_LEN || !name.iter().all(valid) {
            return None;
        }
        let mut bytes = [0u8; Self::MAX_LEN];
        bytes[..name.len()].copy_from_slice(name);
        Some(NodeName {
            bytes,
            len: name.len() as u8,
        })
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        let name = self.bytes.get(..usize::from(self.len)).unwrap_or_default();
        core::str::from_utf8(name).unwrap_or_default()
    }
}

impl core::fmt::Debug for NodeName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("NodeName").field(&self.as_str()).finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for NodeName {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "{=str}", self.as_str());
    }
}

/// The random part's length in hex digits.
const RANDOM_LEN: usize = 32;
/// The longest id: a node name, a dot and the random part.
const MAX_ID_LEN: usize = NodeName::MAX_LEN + 1 + RANDOM_LEN;

/// A session id: 32 lowercase hex digits from 16 random bytes the adapter draws (the core
/// has no random source), after `<node>.` when the server names its node. Visible ASCII, as
/// 2025-11-25 requires, and usable as a map key.
///
/// ```
/// use snodo_core::legacy::{NodeName, SessionId};
///
/// let plain = SessionId::from_random([0xab; 16]);
/// assert_eq!(plain.as_str(), "abababababababababababababababab");
/// let named = SessionId::on_node(NodeName::new("n1").unwrap(), [0xab; 16]);
/// assert_eq!(named.as_str(), "n1.abababababababababababababababab");
/// assert_eq!(SessionId::parse(named.as_str().as_bytes()), Some(named));
/// assert_eq!(named.node(), Some("n1"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionId {
    text: [u8; MAX_ID_LEN],
    len: u8,
}

impl SessionId {
    /// The id spelled by `random` (which must come from a cryptographically secure source).
    pub fn from_random(random: [u8; 16]) -> Self {
        Self::spell(None, random)
    }

    /// The id spelled by `random` after `node` and a dot.
    pub fn on_node(node: NodeName, random: [u8; 16]) -> Self {
        Self::spell(Some(node), random)
    }

    fn spell(node: Option<NodeName>, random: [u8; 16]) -> Self {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0u8; MAX_ID_LEN];
        let prefix = node.map_or(0, |n| usize::from(n.len) + 1);
        if let Some(node) = node {
            let name = node.as_str().as_bytes();
            text[..name.len()].copy_from_slice(name);
            text[name.len()] = b'.';
        }
        let hex = &mut text[prefix..prefix + RANDOM_LEN];
        for (pair, byte) in hex.chunks_exact_mut(2).zip(random) {
            pair[0] = HEX[usize::from(byte >> 4)];
            pair[1] = HEX[usize::from(byte & 0xf)];
        }
        SessionId {
            text,
            len: (prefix + RANDOM_LEN) as u8,
        }
    }

    /// The id in an `Mcp-Session-Id` header, if it has the shape this server mints (with or
    /// without a node name).
    pub fn parse(header: &[u8]) -> Option<Self> {
        let split = header.len().checked_sub(RANDOM_LEN)?;
        let (prefix, random) = header.split_at(split);
        if !random
            .iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            return None;
        }
        if let Some(node) = prefix.strip_suffix(b".") {
            NodeName::from_bytes(node)?;
        } else if !prefix.is_empty() {
            return None;
        }
        let mut text = [0u8; MAX_ID_LEN];
        text[..header.len()].copy_from_slice(header);
        Some(SessionId {
            text,
            len: header.len() as u8,
        })
    }

    /// The header value.
    pub fn as_str(&self) -> &str {
        let text = self.text.get(..usize::from(self.len)).unwrap_or_default();
        core::str::from_utf8(text).unwrap_or_default()
    }

    /// The node named at its front, if any.
    pub fn node(&self) -> Option<&str> {
        self.as_str().split_once('.').map(|(node, _)| node)
    }
}

impl core::fmt::Debug for SessionId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("SessionId").field(&self.as_str()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_with_and_without_a_node_round_trip_and_others_do_not_parse() {
        let node = NodeName::new("a-1").expect("valid");
        let named = SessionId::on_node(node, [0x0f; 16]);
        assert_eq!(named.as_str(), "a-1.0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f");
        assert_eq!(SessionId::parse(named.as_str().as_bytes()), Some(named));
        let longest = NodeName::new(&"z".repeat(32)).expect("32 characters");
        let long = SessionId::on_node(longest, [0xff; 16]);
        assert_eq!(long.as_str().len(), MAX_ID_LEN);
        assert_eq!(SessionId::parse(long.as_str().as_bytes()), Some(long));
        for bad in [
            &b"0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0"[..],
            b"a-1:0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f",
            b"A.0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f",
            b".0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f",
            b"a.b.0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f",
            b"",
        ] {
            assert_eq!(
                SessionId::parse(bad),
                None,
                "{:?}",
                core::str::from_utf8(bad)
            );
        }
        let too_long = [b'z'; 33];
        assert!(NodeName::from_bytes(&too_long).is_none());
    }
}
