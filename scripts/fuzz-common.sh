# Shared by scripts/fuzz-smoke.sh and scripts/fuzz-long.sh (sourced from the repository root).

# Installs cargo-fuzz when it is missing.
need_cargo_fuzz() {
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz not found: installing it (cargo install cargo-fuzz --locked)"
    local started
    started=$(date +%s)
    cargo install cargo-fuzz --locked
    echo "installed cargo-fuzz in $(( $(date +%s) - started )) s"
  fi
  echo "$(cargo fuzz --version), $(rustc --version)"
}

# The targets named on the command line, or every target `cargo fuzz list` names, into the
# array `targets`.
fuzz_targets() {
  if [ "$#" -gt 0 ]; then
    targets=("$@")
  else
    mapfile -t targets < <(cd fuzz && cargo fuzz list)
  fi
  if [ "${#targets[@]}" -eq 0 ]; then
    echo "no fuzz targets" >&2
    exit 1
  fi
}

# The source of a target: the `path` of its [[bin]] in fuzz/Cargo.toml, or the convention.
source_of() {
  local path
  path=$(awk -v name="$1" '
    /^\[\[bin\]\]/ { inbin = 1; found = 0; next }
    /^\[/ { inbin = 0 }
    inbin && $1 == "name" { gsub(/[" ]/, "", $3); found = ($3 == name) }
    inbin && found && $1 == "path" { gsub(/[" ]/, "", $3); print $3; exit }
  ' fuzz/Cargo.toml)
  echo "fuzz/${path:-fuzz_targets/$1.rs}"
}

# The libFuzzer flag of a target's dictionary: fuzz/dict/<target>.dict, else fuzz/dict/json.dict.
dict_flag_of() {
  local dict="$PWD/fuzz/dict/$1.dict"
  [ -f "$dict" ] || dict="$PWD/fuzz/dict/json.dict"
  [ -f "$dict" ] && echo "-dict=$dict"
}
