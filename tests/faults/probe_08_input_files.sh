# Issue 27, 8 (input files): `eval detection --predictions /dev/zero` reached 1.2 GB and `hpo --space /dev/zero`
# read 2.3 GB. Input is read only from regular files (a device or a pipe is refused without reading, a pipe without
# waiting for a writer) and at most 16 MiB of a search space: each refusal names the file.
source "$(dirname "$0")/common.sh"
need_hpo
write_trial
# 2 GB of address space: reading /dev/zero until memory runs out dies of it instead of taking the machine.
ulimit -v 2000000
expect_exit 2 "hpo --space /dev/zero --check" -- timeout 60 "$PITWALL_CLI" hpo --space /dev/zero --command "$TRIAL_COMMAND" \
    --trials 1 --check
expect_output '/dev/zero: is a device, not a regular file' "--space /dev/zero is named as a device"
mkfifo space-fifo.yaml
expect_exit 2 "hpo --space FIFO --check" -- timeout 60 "$PITWALL_CLI" hpo --space space-fifo.yaml --command "$TRIAL_COMMAND" \
    --trials 1 --check
expect_output 'space-fifo.yaml: is a pipe, not a regular file' "a pipe is refused without waiting for a writer"
head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >big.yaml
expect_exit 2 "hpo --space big.yaml --check" -- timeout 60 "$PITWALL_CLI" hpo --space big.yaml --command "$TRIAL_COMMAND" \
    --trials 1 --check
expect_output 'big.yaml: is larger than 16 MiB \(16777217 bytes\)' "a space over the limit names the limit"
big_message="$(grep -o 'big.yaml: is larger.*' "$WORK/out")"
pw data synth --frames 4 --out synth >/dev/null 2>&1 || { echo "cannot make a synthetic dataset"; exit 77; }
expect_exit 2 "eval detection --predictions /dev/zero --check" -- timeout 60 "$PITWALL_CLI" eval detection --dataset synth \
    --predictions /dev/zero --check
expect_output '/dev/zero: is a device, not a regular file' "--predictions /dev/zero is named as a device"
echo "refused without reading: /dev/zero, a FIFO, and $big_message"
