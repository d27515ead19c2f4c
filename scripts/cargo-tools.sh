# Sourced by the scripts that need a cargo subcommand from crates.io: `need_tool CRATE VERSION`
# installs that exact version (with its own lock file) into the project's `.tools/` the first
# time, and puts `.tools/bin` first on PATH, so a fresh machine needs nothing by hand and the
# machine's own cargo home is left alone.
tools_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools"
export PATH="$tools_root/bin:$PATH"

need_tool() {
  local crate=$1 version=$2
  if [ -x "$tools_root/bin/$crate" ] &&
    grep -q "^\"$crate $version " "$tools_root/.crates.toml" 2>/dev/null; then
    return 0
  fi
  echo "tools: installing $crate $version into $tools_root"
  cargo install --quiet --locked --root "$tools_root" "$crate" --version "$version"
}
