#!/usr/bin/env bash
# Proves the `rust-version` in Cargo.toml with that exact compiler: Debian bookworm's rustc-web
# and cargo-web 1.85 are downloaded with `apt-get download` and unpacked with `dpkg -x` into
# .tools/rust-1.85 (nothing is installed on the machine), then
#
#   1. the libraries build with the committed lock file: snodo-core and snodo-std with every
#      feature, and each without default features;
#   2. their tests run, in a copy of the tree whose lock file holds `time` 0.3.45 and
#      `simple_asn1` 0.6.3 (later releases need rustc 1.88; they come in only through the
#      dev-dependencies rcgen and jsonwebtoken's PEM reader, never through the libraries,
#      which step 1 checks).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
deb_version=1.85.0+dfsg3-1~deb12u3
[ "$msrv" = 1.85 ] || { echo "msrv: Cargo.toml says $msrv; update the pinned Debian packages" >&2; exit 1; }
tools=$root/.tools/rust-$msrv
packages=(
  "rustc-web=$deb_version" "cargo-web=$deb_version" "libstd-rust-web-dev=$deb_version"
  "libstd-rust-web-1.85=$deb_version" "libllvm19=1:19.1.7-3~deb12u1" libpcre3 libhttp-parser2.9
)

if [ ! -x "$tools/usr/bin/rustc" ]; then
  echo "msrv: fetching rustc $msrv from Debian (apt-get download, dpkg -x)"
  debs=$(mktemp -d)
  (cd "$debs" && { apt-get download -qq "${packages[@]}" 2>/dev/null ||
    { apt-get update -qq && apt-get download -qq "${packages[@]}"; }; })
  mkdir -p "$tools"
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$tools"; done
  rm -rf "$debs"
fi

export LD_LIBRARY_PATH="$tools/usr/lib/x86_64-linux-gnu:$tools/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RUSTC=$tools/usr/bin/rustc RUSTDOC=$tools/usr/bin/rustdoc
cargo_msrv=$tools/usr/bin/cargo
"$RUSTC" --version | grep -q "^rustc $msrv\." || { echo "msrv: $("$RUSTC" --version) is not $msrv" >&2; exit 1; }
echo "msrv: $("$RUSTC" --version), $("$cargo_msrv" --version)"

export CARGO_TARGET_DIR=$root/target/msrv
echo "msrv: the libraries with the committed lock file"
"$cargo_msrv" build --locked -p snodo-core -p snodo-std --all-features
"$cargo_msrv" build --locked -p snodo-core --no-default-features
"$cargo_msrv" build --locked -p snodo-std --no-default-features
for crate in snodo-core snodo-std; do
  if "$cargo_msrv" tree --locked -p "$crate" --all-features -e normal --prefix none | grep -q '^time v'; then
    echo "msrv: $crate depends on time, whose releases past 0.3.45 need a newer rustc" >&2
    exit 1
  fi
done

echo "msrv: the libraries' tests, in a copy with the dev-only crates held back"
src=$root/target/msrv-src
rm -rf "$src" && mkdir -p "$src"
git ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$src")
cd "$src"
"$cargo_msrv" update --quiet -p simple_asn1 --precise 0.6.3
"$cargo_msrv" update --quiet -p time --precise 0.3.45
"$cargo_msrv" test --locked -p snodo-core --all-features
"$cargo_msrv" test --locked -p snodo-std --all-features
echo "msrv: rustc $msrv builds and tests snodo-core and snodo-std"
