//! What every handler of a typed server shares: the application's data, found by type, and
//! how a failure that is not the protocol's is told to the client.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::error::Error as StdError;

use super::once::{MemoryReplayGuard, ReplayGuard};

/// Turns an application error into the message a client sees.
pub(crate) type DescribeFailure = dyn Fn(&(dyn StdError + 'static)) -> String + Send + Sync;

/// The message a client sees for a failure when the server gives no [`DescribeFailure`]:
/// nothing of the error itself, which may hold paths, addresses or a database's words.
pub(crate) const FAILED: &str = "The request failed on the server; its log says why.";

/// The application's data, the failure policy and the record of one-time tokens, kept with
/// the definitions.
pub(crate) struct Shared {
    data: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
    describe: Option<Box<DescribeFailure>>,
    guard: Box<dyn ReplayGuard>,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            data: HashMap::new(),
            describe: None,
            guard: Box::new(MemoryReplayGuard::default()),
        }
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("data", &self.data.len())
            .field("describe", &self.describe.is_some())
            .finish()
    }
}

impl Shared {
    /// Keeps `value`, replacing a value of the same type.
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.data.insert(TypeId::of::<T>(), Box::new(value));
    }

    /// The value of type `T`, if the server was given one.
    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.data.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// Records one-time tokens in `guard`.
    pub(crate) fn guard_with(&mut self, guard: Box<dyn ReplayGuard>) {
        self.guard = guard;
    }

    /// The record of one-time tokens.
    pub(crate) fn guard(&self) -> &dyn ReplayGuard {
        &*self.guard
    }

    /// Sets how failures are described.
    pub(crate) fn describe_with(&mut self, describe: Box<DescribeFailure>) {
        self.describe = Some(describe);
    }

    /// The client's message for `failure`.
    pub(crate) fn describe(&self, failure: &(dyn StdError + 'static)) -> String {
        match &self.describe {
            Some(describe) => describe(failure),
            None => FAILED.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Store(u32);

    #[test]
    fn data_is_found_by_its_type_and_replaced_by_a_second_value() {
        let mut shared = Shared::default();
        assert!(shared.get::<Store>().is_none());
        shared.insert(Store(1));
        shared.insert(7u64);
        shared.insert(Store(2));
        assert_eq!(shared.get::<Store>(), Some(&Store(2)));
        assert_eq!(shared.get::<u64>(), Some(&7));
        assert!(shared.get::<u32>().is_none());
    }

    #[test]
    fn a_failure_is_told_by_the_policy_or_not_at_all() {
        let mut shared = Shared::default();
        let failure = std::io::Error::other("/etc/secret: permission denied");
        assert_eq!(shared.describe(&failure), FAILED);
        shared.describe_with(Box::new(|e| format!("could not finish: {e}")));
        assert_eq!(
            shared.describe(&failure),
            "could not finish: /etc/secret: permission denied"
        );
    }
}
