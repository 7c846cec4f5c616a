# Sourced by the install-*.sh scripts that put a pinned PyPI package into a virtual environment in a per-user cache.
# pitwall_cached_venv NAME PACKAGE VERSION CHECK [EXTRA==VERSION ...]
#   makes ${PITWALL_CACHE_DIR:-$HOME/.cache/pitwall}/venv-NAME-VERSION-py<python> with `pip install PACKAGE==VERSION`
#   and the pinned EXTRA packages (and what they pull) from PyPI, with the interpreter $python (set by the caller),
#   unless its stamp file .pitwall-PACKAGE-VERSION[+EXTRA-VERSION...] is there (a new extra remakes the venv); links <checkout>/.venv-NAME to it; prints its path. CHECK is Python code the
#   new environment runs: it fails for a broken install, and its output becomes the stamp's content (which callers
#   may read). Idempotent: with the stamp there, no network and one bare Python start (~30 ms) for the version key.
#   A venv is tied to its interpreter, hence the Python minor version in the key.
pitwall_cached_venv() {
  local name="$1" package="$2" version="$3" check="$4"
  shift 4
  local extras=("$@") extra_key="" extra
  for extra in "${extras[@]}"; do
    [[ "$extra" == *==* ]] || { echo "pitwall_cached_venv: $extra: pin it as NAME==VERSION" >&2; return 2; }
    extra_key+="+${extra/==/-}"
  done
  local cache="${PITWALL_CACHE_DIR:-$HOME/.cache/pitwall}"
  local pyver
  pyver="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
  local venv="$cache/venv-$name-$version-py$pyver"
  local stamp="$venv/.pitwall-$package-$version$extra_key"
  local link="$PITWALL_ROOT/.venv-$name"
  if [[ ! -f "$stamp" ]]; then
    local start tmp checked
    start=$(date +%s)
    mkdir -p "$cache"
    # Built beside its final place and moved there once complete, so an interrupted download leaves no half venv.
    tmp="$venv.partial.$$"
    rm -rf "$tmp"
    trap "rm -rf '$tmp'" EXIT
    "$python" -m venv "$tmp"
    "$tmp/bin/python" -m pip install --quiet --no-input --progress-bar off "$package==$version" "${extras[@]}"
    rm -rf "$venv"
    mv "$tmp" "$venv"
    trap - EXIT
    # A venv's scripts name their own path; the moved venv is used only through bin/python, which is a symlink to
    # the interpreter and works from anywhere, and through the packages' files.
    checked="$(PYTHONWARNINGS=ignore "$venv/bin/python" -c "$check")"
    echo "$checked" > "$stamp"
    echo "pitwall: installed $package $version into $venv in $(( $(date +%s) - start )) s" >&2
  fi
  if [[ "$(readlink "$link" 2>/dev/null)" != "$venv" ]]; then
    rm -rf "$link"
    ln -s "$venv" "$link"
  fi
  echo "$venv"
}
