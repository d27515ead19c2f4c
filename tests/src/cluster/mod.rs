//! A cluster on loopback: `preferences` example nodes with key-ring files ([`node`]), nginx
//! in front of them ([`nginx`]) and a load generator running the preference flow through it
//! ([`load`]).

pub mod load;
pub mod nginx;
pub mod node;
