# Issue 27, 16: --db :memory: and file: URIs are refused: they would store nothing.
source "$(dirname "$0")/common.sh"
for db in ':memory:' 'file:x?mode=memory'; do
    expect_exit 2 "study create --db $db" -- pw study create --db "$db" --study s
    refute_output 'created study' "--db $db"
    expect_output "stores nothing|not accepted" "--db $db: says why"
done
echo "refused: $(head -n 1 "$WORK/out")"
