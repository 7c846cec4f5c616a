#!/usr/bin/env bash
# The installed tree works on its own: `cmake --install` of this build into a fresh prefix, then the installed
# programs run with nothing of the build tree on any path (no PITWALL_PLUGIN_PATH, a working directory outside the
# checkout): --version, `plugins` lists both models, the config keys come from the installed plugins' schema files,
# the smoke training runs on an installed example config, the man pages render, the bash completion completes.
# Usage: PITWALL_BINARY_DIR=<build> bash tests/packaging/install_tree.sh   (ctest -R '^install_tree$')
set -euo pipefail
: "${PITWALL_BINARY_DIR:?the build folder (ctest sets it)}"
unset PITWALL_PLUGIN_PATH PITWALL_ENGINE_MODULE PITWALL_DB
work=$(mktemp -d /tmp/pitwall-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "install_tree: FAIL: $*" >&2; exit 1; }

cmake --install "$PITWALL_BINARY_DIR" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }
echo "install_tree: installed $(find "$prefix" -type f | wc -l) files into a fresh prefix"
cd "$work"
pw=$prefix/bin/pitwall

# No absolute run path into the build tree: the installed binaries carry only $ORIGIN-relative ones.
for f in "$pw" "$prefix"/bin/pitwall-gui "$prefix"/lib/pitwall/*.so "$prefix"/lib/pitwall/plugins/*.so; do
  [ -e "$f" ] || continue
  rpath=$(readelf -d "$f" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p; s/.*(RPATH).*\[\(.*\)\]/\1/p')
  case "$rpath" in
    *"$PITWALL_BINARY_DIR"*) fail "$f keeps a run path into the build tree: $rpath" ;;
  esac
done

version=$("$pw" --version) || fail "pitwall --version exited $?"
[[ $version == pitwall\ * ]] || fail "pitwall --version printed '$version'"
echo "install_tree: $version"

plugins=$("$pw" plugins) || fail "pitwall plugins exited $?"
grep -q "transfuser" <<< "$plugins" || fail "pitwall plugins does not list transfuser: $plugins"
grep -q "autospeed" <<< "$plugins" || fail "pitwall plugins does not list autospeed: $plugins"
grep -q "$prefix/lib/pitwall/plugins" <<< "$plugins" || fail "the plugins are not the installed ones: $plugins"
echo "install_tree: plugins lists transfuser and autospeed from $prefix/lib/pitwall/plugins"

keys=$("$pw" config schema) || fail "pitwall config schema exited $?"
grep -q "policy.transfuser.upsample_mode" <<< "$keys" || fail "the transfuser keys are missing from config schema"

if [ -e "$prefix/lib/pitwall/pitwall_cli_engine.so" ]; then
  cfg=$prefix/share/pitwall/configs/transfuser/smoke.yaml
  [ -f "$cfg" ] || fail "no example config at $cfg"
  "$pw" plugins --check > "$work/check.log" 2>&1 || { cat "$work/check.log"; fail "pitwall plugins --check failed"; }
  "$pw" train "$cfg" --db "$work/r.db" training.stages.pretrain.epochs=1 training.stages.posttrain.epochs=1 \
    > "$work/train.log" 2>&1 || { cat "$work/train.log"; fail "the smoke training on the installed config failed"; }
  "$pw" study list --db "$work/r.db" | grep -q transfuser-smoke || fail "the smoke training's study is not in r.db"
  echo "install_tree: the smoke training ran on the installed config ($(tail -1 "$work/train.log"))"
fi

# Man pages: one per command, rendered by man without a warning.
man_dir=$prefix/share/man/man1
for page in pitwall pitwall-study-tell pitwall-config-show pitwall-gui; do
  [ -f "$man_dir/$page.1.gz" ] || fail "no man page $page.1.gz"
done
[ -e "$prefix/lib/pitwall/pitwall_cli_engine.so" ] && { [ -f "$man_dir/pitwall-train.1.gz" ] || fail "no man page for train"; }
warnings=$(MANWIDTH=100 man --warnings -l "$man_dir/pitwall-study-tell.1.gz" 2>&1 > "$work/man.txt") || fail "man failed: $warnings"
[ -z "$warnings" ] || fail "man warns about pitwall-study-tell.1: $warnings"
grep -q -- "--study" "$work/man.txt" || fail "the rendered page lacks --study"
echo "install_tree: $(ls "$man_dir" | wc -l) man pages; pitwall-study-tell.1 renders without a warning"

# Bash completion: the installed script completes through the installed pitwall.
complete_line() { # prints the candidates bash would offer for the line $1 (cursor at its end)
  PATH="$prefix/bin:$PATH" bash -c '
    source "$1"
    COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
    _pitwall
    printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/pitwall" "$1"
}
"$pw" study create --db "$work/c.db" --study first-study > /dev/null
"$pw" study create --db "$work/c.db" --study fine-tuning > /dev/null
[ "$(complete_line "pitwall stu")" = "study" ] || fail "'pitwall stu' completes to '$(complete_line "pitwall stu")'"
got=$(complete_line "pitwall study best --db $work/c.db --study fi" | tr '\n' ' ')
[ "$got" = "fine-tuning first-study " ] || fail "study names: got '$got'"
got=$(complete_line "pitwall config show x.yaml policy.transfuser.upsample_m" | tr '\n' ' ')
[ "$got" = "policy.transfuser.upsample_mode= " ] || fail "config keys: got '$got'"
got=$(complete_line "pitwall config schema --gr" | tr '\n' ' ')
[ "$got" = "--group " ] || fail "options: got '$got'"
echo "install_tree: bash completion completes commands, options, study names and config keys"
echo "install_tree: pass"
