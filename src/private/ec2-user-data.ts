/**
 * The shell the library adds to an instance's user data to mount an S3 Files access point. It is
 * real code: test/mount/ec2.test.ts lints it with shellcheck and runs it against stub package
 * managers and `mount` commands.
 */

/** Oldest amazon-efs-utils that mounts S3 Files (`mount -t s3files`). */
export const MIN_EFS_UTILS_VERSION = '3.0.0';

/**
 * Defines `s3files_mount FS_ID ACCESS_POINT_ID MOUNT_PATH READ_ONLY MIN_VERSION TIMEOUT_SECONDS`.
 * It installs (or upgrades) amazon-efs-utils with dnf or yum, writes one fstab line (`_netdev,nofail`
 * so a boot never hangs on it; replaced, not duplicated, on a re-run), and mounts, retrying with
 * backoff while the mount target is not reachable yet, until the timeout. The body runs in a
 * subshell with its own `set -euo pipefail`, so it changes nothing of the rest of the user data.
 * (No `${...}` in it: this is a template literal.)
 */
export const MOUNT_FUNCTION = String.raw`s3files_mount() (
  set -euo pipefail
  fs_id="$1"; access_point="$2"; mount_path="$3"; read_only="$4"; min_version="$5"; timeout="$6"
  log() { echo "s3files_mount: $*" >&2; }
  version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }
  installed_version() { rpm -q --queryformat '%{VERSION}' amazon-efs-utils 2>/dev/null || true; }

  have="$(installed_version)"
  if [ -z "$have" ] || ! version_ge "$have" "$min_version"; then
    if command -v dnf >/dev/null 2>&1; then
      dnf install -y amazon-efs-utils
      [ -z "$have" ] || dnf upgrade -y amazon-efs-utils
    elif command -v yum >/dev/null 2>&1; then
      yum install -y amazon-efs-utils
      [ -z "$have" ] || yum update -y amazon-efs-utils
    else
      log "no dnf or yum: install amazon-efs-utils >= $min_version yourself (https://github.com/aws/efs-utils)"
      exit 1
    fi
    have="$(installed_version)"
    if [ -z "$have" ] || ! version_ge "$have" "$min_version"; then
      log "amazon-efs-utils '$have' is installed, but S3 Files needs >= $min_version"
      exit 1
    fi
  fi

  options="_netdev,nofail,accesspoint=$access_point"
  if [ "$read_only" = "true" ]; then options="$options,ro"; fi
  mkdir -p "$mount_path"
  line="$fs_id:/ $mount_path s3files $options 0 0"
  # One line per mount path: a re-run (or a changed access point) replaces it.
  tmp="$(mktemp)"
  awk -v mp="$mount_path" '!($2 == mp && $3 == "s3files")' /etc/fstab > "$tmp"
  echo "$line" >> "$tmp"
  cat "$tmp" > /etc/fstab
  rm -f "$tmp"

  deadline=$(( $(date +%s) + timeout ))
  delay=2
  until mountpoint -q "$mount_path"; do
    if mount "$mount_path"; then break; fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "could not mount $fs_id ($access_point) at $mount_path within $timeout s: check that the instance's subnet has a mount target in its AZ, its security group reaches TCP 2049, and its role may s3files:ClientMount"
      exit 1
    fi
    log "mount target not reachable yet; retrying in $delay s"
    sleep "$delay"
    delay=$(( delay < 30 ? delay * 2 : 30 ))
  done
  log "mounted $fs_id ($access_point) at $mount_path"
)`;

/** The user-data line that calls the function (arguments quoted; tokens are rendered by CloudFormation). */
export function mountCommand(args: {
  fileSystemId: string; accessPointId: string; mountPath: string; readOnly: boolean; timeoutSeconds: number;
}): string {
  return `s3files_mount '${args.fileSystemId}' '${args.accessPointId}' '${args.mountPath}' ${args.readOnly ? 'true' : 'false'} ${MIN_EFS_UTILS_VERSION} ${args.timeoutSeconds}`;
}
