#!/bin/bash
# The EC2 benchmark (integ app), run once at boot after the S3 Files mount: fio sequential writes
# and reads on the mount at each size, `aws s3 cp` of the same bytes (timed without the CLI's
# start-up, from its own debug log, and as a whole process), and how long a change takes
# to show on the other side (export: mount -> S3; import: S3 -> mount). node renders results.json
# and results.md (index.js) and both go to s3://$BUCKET/benchmarks/ec2/<run>/.
#
# Env: MOUNT_DIR (the access point's mount), BUCKET, PREFIX (the key prefix MOUNT_DIR shows, e.g.
# "bench/"), OUT (a local work directory), REPORT (index.js); SIZES (default "1M 16M 128M"),
# VISIBILITY_TIMEOUT seconds (default 300).
set -euo pipefail
: "${MOUNT_DIR:?}" "${BUCKET:?}" "${PREFIX?}" "${OUT:?}" "${REPORT:?}"
SIZES="${SIZES:-1M 16M 128M}"
VISIBILITY_TIMEOUT="${VISIBILITY_TIMEOUT:-300}"

run_id="$(date -u +%Y%m%dT%H%M%SZ)"
work_name="ec2-benchmark-$run_id"
work="$MOUNT_DIR/$work_name"
mkdir -p "$OUT/fio" "$OUT/local" "$OUT/s3cp" "$work"
now_ms() { date +%s%3N; }
# One `aws s3 cp` of <size> (<bytes>) <direction> from <from> to <to>, with its debug log: the report
# times the transfer from the CLI's first S3 request (in that log) to its exit, without the CLI's
# start-up (Python, configuration, credentials), and records the whole process's time beside it.
s3_cp() {
  local log="s3cp/$3-$1.log" start end
  start="$(now_ms)"
  aws s3 cp --quiet --debug "$4" "$5" 2> "$OUT/$log"
  end="$(now_ms)"
  echo "{\"size\":\"$1\",\"bytes\":$2,\"direction\":\"$3\",\"ms\":$(( end - start )),\"endMs\":$end,\"log\":\"$log\"}" >> "$OUT/s3cp.jsonl"
}
bytes_of() { numfmt --from=iec "$1"; }
drop_caches() { sync; echo 3 2>/dev/null > /proc/sys/vm/drop_caches || true; }

for size in $SIZES; do
  bytes="$(bytes_of "$size")"
  for rw in write read; do
    drop_caches
    fio --name="$rw-$size" --directory="$work" --filename="file-$size" --size="$size" --bs=1M --rw="$rw" \
      --ioengine=psync --end_fsync=1 --output-format=json --output="$OUT/fio/$rw-$size.json"
  done
  # The same bytes through the S3 API.
  head -c "$bytes" /dev/urandom > "$OUT/local/file-$size"
  key="${PREFIX}s3cp-$run_id/file-$size"
  s3_cp "$size" "$bytes" upload "$OUT/local/file-$size" "s3://$BUCKET/$key"
  s3_cp "$size" "$bytes" download "s3://$BUCKET/$key" "$OUT/local/down-$size"
done

# Export: a file written on the mount, until S3 has it.
echo "exported at $(date -u +%FT%TZ)" > "$work/export.txt"
sync
start="$(now_ms)"
timed_out=false
until aws s3api head-object --bucket "$BUCKET" --key "${PREFIX}$work_name/export.txt" > /dev/null 2>&1; do
  if (( $(now_ms) - start > VISIBILITY_TIMEOUT * 1000 )); then timed_out=true; break; fi
  sleep 1
done
echo "{\"direction\":\"export\",\"ms\":$(( $(now_ms) - start )),\"timedOut\":$timed_out}" >> "$OUT/visibility.jsonl"

# Import: an object put through S3, until the mount lists it.
echo "imported at $(date -u +%FT%TZ)" > "$OUT/local/import.txt"
aws s3 cp --quiet "$OUT/local/import.txt" "s3://$BUCKET/${PREFIX}$work_name/import.txt"
start="$(now_ms)"
timed_out=false
until ls "$work" > /dev/null && [ -e "$work/import.txt" ]; do
  if (( $(now_ms) - start > VISIBILITY_TIMEOUT * 1000 )); then timed_out=true; break; fi
  sleep 1
done
echo "{\"direction\":\"import\",\"ms\":$(( $(now_ms) - start )),\"timedOut\":$timed_out}" >> "$OUT/visibility.jsonl"

node "$REPORT" "$OUT"
aws s3 cp --quiet "$OUT/results.json" "s3://$BUCKET/benchmarks/ec2/$run_id/results.json"
aws s3 cp --quiet "$OUT/results.md" "s3://$BUCKET/benchmarks/ec2/$run_id/results.md"

# Leave nothing large behind: the benchmark files on the mount and the S3-API copies.
rm -rf "$work"
aws s3 rm --quiet --recursive "s3://$BUCKET/${PREFIX}s3cp-$run_id/"
echo "EC2 benchmark $run_id: s3://$BUCKET/benchmarks/ec2/$run_id/results.md"
