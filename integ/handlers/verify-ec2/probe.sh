#!/usr/bin/env bash
# The verification app's EC2 probe (`npx projen verify`), run at the end of the instance's boot
# (an EXIT trap of its user data, so it runs even when the library's mount gave up). It checks the
# access-point mount the library made, tries a mount of the file system's root with a role that
# IAM would allow (only the file-system policy can refuse it), and puts the results as JSON into the
# bucket, where the verification app's probe function reads them.
# Inputs (environment): FILE_SYSTEM_ID, MOUNT_PATH, RESULT_URI (s3://bucket/key).
set -uo pipefail

: "${FILE_SYSTEM_ID:?}" "${MOUNT_PATH:?}" "${RESULT_URI:?}"
ROOT_PROBE="${ROOT_PROBE:-/mnt/verify-root}"
result="$(mktemp)"

# 1. The access point, mounted by the library's user data.
ap_outcome=refuted
if mountpoint -q "$MOUNT_PATH" && ap_out="$(echo ec2-probe >"$MOUNT_PATH/ec2-probe.txt" 2>&1 && cat "$MOUNT_PATH/ec2-probe.txt" 2>&1)" \
  && [[ "$ap_out" == ec2-probe ]]; then
  ap_outcome=confirmed
fi
ap_detail="$(mountpoint "$MOUNT_PATH" 2>&1; grep " $MOUNT_PATH " /proc/mounts 2>&1 | head -n 1)"

# 2. The root, without an access point: only the file-system policy's Deny can refuse it.
mkdir -p "$ROOT_PROBE"
root_out="$(timeout 180 mount -t s3files "$FILE_SYSTEM_ID:/" "$ROOT_PROBE" 2>&1)"
root_rc=$?
root_outcome=refuted
if [[ $root_rc -ne 0 ]] && grep -qi 'access denied' <<<"$root_out"; then
  root_outcome=confirmed
fi
if [[ $root_rc -eq 0 ]]; then umount "$ROOT_PROBE" || true; fi

# JSON through python3 (on every AMI the library supports), never through string pasting.
AP_OUTCOME="$ap_outcome" AP_DETAIL="$ap_detail" ROOT_OUTCOME="$root_outcome" ROOT_RC="$root_rc" ROOT_OUT="$root_out" \
  python3 -c '
import json, os
e = os.environ
print(json.dumps({
  "accessPointMount": {"outcome": e["AP_OUTCOME"], "evidence": {"mount": e["AP_DETAIL"][-400:]}},
  "rootMount": {"outcome": e["ROOT_OUTCOME"], "evidence": {"exitCode": int(e["ROOT_RC"]), "output": e["ROOT_OUT"][-400:]}},
}))' >"$result"
aws s3 cp "$result" "$RESULT_URI" --only-show-errors
rm -f "$result"
