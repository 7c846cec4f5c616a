# Issue 27, 17: a directory given where a config file is expected is named as a directory.
source "$(dirname "$0")/common.sh"
mkdir adir
expect_exit 2 "config validate adir" -- pw config validate adir
expect_output 'adir.*is a directory' "the message says it is a directory"
echo "$(head -n 1 "$WORK/out")"
