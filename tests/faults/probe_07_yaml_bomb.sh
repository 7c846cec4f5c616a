# Issue 27, 7: a billion-laughs search space is refused with a clear message instead of exhausting memory.
source "$(dirname "$0")/common.sh"
{
    echo 'a: &a [x, x, x, x, x, x, x, x, x]'
    prev=a
    for n in b c d e f g h i; do
        echo "$n: &$n [*$prev, *$prev, *$prev, *$prev, *$prev, *$prev, *$prev, *$prev, *$prev]"
        prev=$n
    done
    echo 'x: {type: uniform, min: 0.0, max: 1.0}'
} >bomb.yaml
# 2 GB of address space: an unbounded expansion dies of it (bad_alloc, exit 134) instead of taking the machine.
ulimit -v 2000000
expect_exit 2 "hpo --space bomb.yaml --check" -- pw hpo --space bomb.yaml --command 'true {x}' --trials 1 --check
expect_output 'bomb.yaml: .*more than 1000000 nodes' "the message names the file and the limit"
echo "refused in $(wc -c <bomb.yaml) bytes: $(head -c 160 "$WORK/out")"
