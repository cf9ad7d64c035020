#!/bin/bash
# The EC2 benchmark (integ app), run once at boot after the S3 Files mount: fio sequential writes
# and reads on the mount at each size, `aws s3 cp` of the same bytes, and how long a change takes
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
mkdir -p "$OUT/fio" "$OUT/local" "$work"
now_ms() { date +%s%3N; }
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
  start="$(now_ms)"
  aws s3 cp --quiet "$OUT/local/file-$size" "s3://$BUCKET/$key"
  echo "{\"size\":\"$size\",\"bytes\":$bytes,\"direction\":\"upload\",\"ms\":$(( $(now_ms) - start ))}" >> "$OUT/s3cp.jsonl"
  start="$(now_ms)"
  aws s3 cp --quiet "s3://$BUCKET/$key" "$OUT/local/down-$size"
  echo "{\"size\":\"$size\",\"bytes\":$bytes,\"direction\":\"download\",\"ms\":$(( $(now_ms) - start ))}" >> "$OUT/s3cp.jsonl"
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
