# Issue 27, 12: a study name with an escape sequence and a newline is printed escaped, one table row per study.
source "$(dirname "$0")/common.sh"
name=$'red\e[31mname\nsecond line'
expect_exit 0 "study create" -- pw study create --db r.db --study "$name"
expect_exit 0 "study list" -- pw study list --db r.db
if grep -q $'\e' "$WORK/out"; then
    echo "study list printed a raw ESC byte"
    exit 1
fi
expect_output 'red\\x1b\[31mname\\nsecond line' "the name is shown escaped"
echo "study list shows: $(grep -o 'red.*line' "$WORK/out")"
