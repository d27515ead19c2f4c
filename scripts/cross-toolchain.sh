# Sourced by the scripts that build for a microcontroller target. `cross_route TARGET` picks how:
#
#   rustup   the target's standard library is installed (`rustup target add TARGET`), as on a
#            user's machine: the workspace's own toolchain builds it;
#   build-std otherwise: Debian's rustc-web/cargo-web with the library sources (rust-web-src)
#            build `core` for the target from source (`-Z build-std=core`, RUSTC_BOOTSTRAP=1);
#            installed with apt-get when missing.
#
# It sets CROSS_ROUTE, and `cross_cargo ARGS...` runs cargo on that route (`build-std` flags
# added for the commands that compile). RUSTC is pinned on the build-std route so rustup's
# proxy (and the repository's rust-toolchain.toml) cannot swap the compiler under Debian's cargo.
cross_route() {
  local target=$1
  if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    CROSS_ROUTE=rustup
  else
    if [ ! -x /usr/bin/cargo ] || [ ! -x /usr/bin/rustc ] ||
      [ ! -d "$(/usr/bin/rustc --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library/core" ]; then
      echo "cross: installing Debian's rustc-web, cargo-web, rust-web-src and lld-22"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rustc-web cargo-web rust-web-src lld-22 >/dev/null
    fi
    CROSS_ROUTE=build-std
  fi
  CROSS_TARGET=$target
  echo "cross: $target via the $CROSS_ROUTE route"
}

cross_cargo() {
  if [ "$CROSS_ROUTE" = rustup ]; then
    cargo "$@" --target "$CROSS_TARGET"
  else
    # Debian's lld-22 installs `ld.lld-22`, not the `rust-lld` the bare-metal targets name.
    local linker_var
    linker_var="CARGO_TARGET_$(echo "$CROSS_TARGET" | tr 'a-z-' 'A-Z_')_LINKER"
    if [ -z "${!linker_var:-}" ] && command -v ld.lld-22 >/dev/null; then
      export "$linker_var=ld.lld-22"
    fi
    CARGO=/usr/bin/cargo RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
      /usr/bin/cargo "$@" --target "$CROSS_TARGET" -Z build-std=core
  fi
}
