/**
 * The shell the library adds to an instance's user data to mount an S3 Files access point. It is
 * real code: test/mount/ec2.test.ts lints it with shellcheck and runs it against stub package
 * managers and `mount` commands.
 */

/** Oldest amazon-efs-utils that mounts S3 Files (`mount -t s3files`). */
export const MIN_EFS_UTILS_VERSION = '3.0.0';

/**
 * `replace_file PATH`: replaces PATH (the file a symlink leads to) with its standard input,
 * atomically: a new file in the same directory, given the old file's mode, owner and SELinux
 * context (`cp --preserve=all`, which does not fail where there is no SELinux), flushed to disk
 * (`dd conv=fsync`), then renamed over it. A crash or a stop at any point leaves the old file or
 * the new one, never a part of either; when a step fails it changes nothing and returns 1. A
 * temporary file a stopped run left is removed by the next. Both scripts below define it, and no
 * other writer runs at the same time (cloud-init runs them one after the other).
 */
const REPLACE_FILE_FUNCTION = String.raw`replace_file() {
  local target dir tmp
  target="$(readlink -f -- "$1")" || return 1
  dir="$(dirname -- "$target")"
  rm -f -- "$dir/.$(basename -- "$target").cdk-s3files-tmp."*
  tmp="$(mktemp "$dir/.$(basename -- "$target").cdk-s3files-tmp.XXXXXX")" || return 1
  if { if [ -e "$target" ]; then cp --preserve=all -- "$target" "$tmp"; else chmod 0644 "$tmp"; fi; } \
    && dd of="$tmp" conv=fsync status=none && mv -f -- "$tmp" "$target"; then
    return 0
  fi
  rm -f -- "$tmp"
  return 1
}`;

/**
 * The cloud-init per-boot script: reads the instance's current user data from the instance
 * metadata service (IMDSv2), takes out what this library wrote (the `s3files_mount` function and
 * its calls), drops the fstab lines of S3 Files mounts it no longer has (unmounting them), and runs
 * the rest, which writes each line anew and remounts what changed. Before it changes anything, the
 * list of paths it manages names every path of the current user data and keeps every dropped path
 * until that path is cleaned up, and that list and /etc/fstab are only ever replaced whole
 * (`replace_file`): a boot stopped at any point (a mount may retry for 10 minutes) forgets no path,
 * and the next boot finishes the job. A dropped path stays immutable,
 * unless a path the user data now mounts lies at or under it (its mount point must be created
 * there). Each IMDS call is retried 3 times, 1 s apart, each attempt within 5 s (23 s at
 * most for a silent IMDS); without an answer, or when the user data is not a `#!` script (MIME
 * multipart, gzip), it keeps /etc/fstab as it is. (No `${...}` in it: it is inlined in a template
 * literal.)
 */
export const PER_BOOT_SCRIPT = String.raw`#!/bin/bash
# Installed by cdk-s3files-lambda: re-applies the S3 Files mounts of the current user data on every boot.
set -uo pipefail
log() { echo "s3files-per-boot: $*" >&2; }
@REPLACE_FILE@
imds=http://169.254.169.254/latest
# A throttled or briefly unavailable IMDS (429, 5xx, refused, timed out) is retried; a silent one cannot hang the boot.
imds_curl() { curl -sf --connect-timeout 2 --max-time 5 --retry 3 --retry-delay 1 --retry-connrefused "$@"; }
if ! token="$(imds_curl -X PUT "$imds/api/token" -H 'X-aws-ec2-metadata-token-ttl-seconds: 60')" \
  || ! user_data="$(imds_curl -H "X-aws-ec2-metadata-token: $token" "$imds/user-data")"; then
  log "the instance metadata service did not answer: keeping /etc/fstab as it is"
  exit 0
fi
# Anything but a shell script (MIME multipart, gzip, cloud-config) would read as "no mounts" and unmount them all.
case "$user_data" in
  '#!'*) ;;
  *)
    first="$(printf '%s\n' "$user_data" | head -n 1 | cut -c 1-60)"
    if [ "$(printf '%s' "$first" | tr -cd '[:print:]')" = "$first" ]; then first="it starts with \"$first\""; else first="it does not start with text: compressed?"; fi
    log "the user data is not a shell script ($first): keeping /etc/fstab as it is (the library mounts from ec2.UserData.forLinux() user data only)"
    exit 0
    ;;
esac
mounts="$(printf '%s\n' "$user_data" | awk '/^s3files_mount\(\) \($/ { f = 1 } f { print } f && /^\)$/ { f = 0; next } !f && /^s3files_mount \047/ { print }')"
calls="$(printf '%s\n' "$mounts" | grep "^s3files_mount '" || true)"
# The mount paths the current user data asks for (the third argument of each call).
# shellcheck disable=SC2317 # called through the eval
wanted="$(s3files_mount() { printf '%s\n' "$3"; }; eval "$calls")"
# Only the paths this library mounted before (listed by s3files_mount): other s3files lines are not ours.
managed=/var/lib/cdk-s3files-lambda/mount-paths
stale="$({ if [ -n "$wanted" ]; then grep -vxF -e "$wanted"; else cat; fi; } 2>/dev/null < "$managed" || true)"
# Before anything changes, the list names every path of the current user data and every path still to
# clean up (each leaves the list only once it is): a boot stopped at any point, even while a mount
# retries for minutes, forgets no path, and the next boot finishes the job.
mkdir -p /var/lib/cdk-s3files-lambda
if ! { cat "$managed" 2>/dev/null || true; printf '%s\n' "$wanted"; } | awk 'NF && !seen[$0]++' | replace_file "$managed"; then
  log "could not write $managed: it stays as it was"
fi
for mount_path in $stale; do
  # A wanted path at or under this one: its mount point cannot be made in an immutable directory.
  under="$(printf '%s\n' "$wanted" | awk -v p="$mount_path" 'BEGIN { sub(/\/+$/, "", p) }
    { w = $0; sub(/\/+$/, "", w) } w != "" && (w == p || index(w, p "/") == 1) { print w; exit }')"
  if [ -n "$under" ]; then
    log "$mount_path is no longer in the user data, and $under is at or under it: unmounting it, dropping its fstab line, and making the directory writable again (chattr -i) for the new mount point"
  else
    log "$mount_path is no longer in the user data: unmounting it and dropping its fstab line (the directory stays immutable: chattr -i to use it)"
  fi
  if mountpoint -q "$mount_path"; then umount "$mount_path" || umount -l "$mount_path"; fi
  if ! awk -v mp="$mount_path" '!($2 == mp && $3 == "s3files")' /etc/fstab | replace_file /etc/fstab; then
    log "could not rewrite /etc/fstab (it stays as it was): $mount_path stays listed in $managed, and the next boot drops it"
    continue
  fi
  if [ -n "$under" ] && [ -d "$mount_path" ]; then chattr -i "$mount_path" || log "could not make $mount_path writable again (chattr -i)"; fi
  awk -v mp="$mount_path" '$0 != mp' "$managed" | replace_file "$managed" || log "could not write $managed: $mount_path stays listed (dropping it again is harmless)"
done
if [ -n "$calls" ]; then bash -c "$mounts"; fi
`.replace('@REPLACE_FILE@', () => REPLACE_FILE_FUNCTION);

/**
 * Defines `s3files_mount FS_ID ACCESS_POINT_ID MOUNT_PATH READ_ONLY MIN_VERSION TIMEOUT_SECONDS`.
 * It installs (or upgrades) amazon-efs-utils the way the S3 user guide documents ("Prerequisites for
 * S3 Files", S3 Files client): dnf or yum from Amazon's repositories on Amazon Linux, the efs-utils
 * project's installer on the other supported distributions (RHEL, Ubuntu, SLES, read from
 * /etc/os-release at boot: the machine image does not tell at synth); anything else, or an install
 * that fails, stops it with a message naming the distribution, before fstab and the mount. It then
 * writes one fstab line (`_netdev,nofail` so a boot never hangs on it; replaced, not duplicated, on
 * a re-run), and mounts, retrying with backoff while the mount target is not reachable yet, until
 * the timeout.
 *
 * Two things make later changes safe. The mount point is made immutable (`chattr +i`) before the
 * first mount, so while nothing is mounted there a write fails (EPERM) instead of landing on the
 * local disk and never reaching S3. And, before the install (a stop can interrupt it), it
 * installs a cloud-init per-boot script (`PER_BOOT_SCRIPT`) that re-applies the mounts of the
 * instance's *current* user data on every boot: CloudFormation changes user data by stopping and
 * starting the instance, and cloud-init does not run user data again. A line that changed for a
 * mounted path is unmounted and mounted again with the new access point or options.
 * The body runs in a subshell with its own `set -euo pipefail`, so it changes nothing of the rest
 * of the user data. (No `${...}` in it: this is a template literal.)
 */
export const MOUNT_FUNCTION = String.raw`s3files_mount() (
  set -euo pipefail
  fs_id="$1"; access_point="$2"; mount_path="$3"; read_only="$4"; min_version="$5"; timeout="$6"
  # The mount's client actions (a 7th argument since they are named in the user data; older lines have none).
  client_actions=unnamed; if [ "$#" -ge 7 ]; then client_actions="$7"; fi
  log() { echo "s3files_mount: $*" >&2; }
  @REPLACE_FILE@
  install_per_boot() {
    mkdir -p /var/lib/cloud/scripts/per-boot
    # A new file renamed over the old: bash reads a script as it runs, so a running per-boot script
    # rewritten in place would go on with whatever the new text has at its offset.
    cat > /var/lib/cloud/scripts/per-boot/.50-s3files-mounts.sh.new <<'S3FILES_PER_BOOT'
@PER_BOOT@
S3FILES_PER_BOOT
    chmod 0755 /var/lib/cloud/scripts/per-boot/.50-s3files-mounts.sh.new
    mv -f /var/lib/cloud/scripts/per-boot/.50-s3files-mounts.sh.new /var/lib/cloud/scripts/per-boot/50-s3files-mounts.sh
  }
  version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }
  # The version of the installed package (rpm, or dpkg without the Debian revision), empty if none.
  installed_version() {
    if command -v rpm >/dev/null 2>&1 && rpm -q amazon-efs-utils >/dev/null 2>&1; then
      rpm -q --queryformat '%{VERSION}' amazon-efs-utils
    elif command -v dpkg-query >/dev/null 2>&1; then
      # Only an installed package ("install ok installed", not one removed with its config kept);
      # the version without its epoch and Debian revision.
      dpkg-query -s amazon-efs-utils 2>/dev/null | awk '$1 == "Status:" { ok = ($0 ~ / ok installed$/) } $1 == "Version:" { v = $2 }
        END { if (ok) { sub(/^[0-9]+:/, "", v); sub(/-[^-]*$/, "", v); print v } }' || true
    fi
  }
  # The distribution, "ID VERSION_ID" from /etc/os-release (freedesktop.org; the machine image does not tell at synth).
  # shellcheck source=/dev/null
  os_id="$( (set +u; ID=unknown; VERSION_ID=; . /etc/os-release 2>/dev/null || true; echo "$ID $VERSION_ID") )"
  install_failed() {
    log "$1 failed on $os_id: fix what its messages above say, or install amazon-efs-utils >= $min_version in the image (https://github.com/aws/efs-utils/blob/master/INSTALL.md)"
    exit 1
  }

  # First, before an install that a stop can interrupt: cloud-init never runs this user data again,
  # so only the per-boot script can finish the mount on a later boot.
  # The paths this library manages: the per-boot script drops only these when the user data no longer has them.
  mkdir -p /var/lib/cdk-s3files-lambda
  grep -qxF -- "$mount_path" /var/lib/cdk-s3files-lambda/mount-paths 2>/dev/null || echo "$mount_path" >> /var/lib/cdk-s3files-lambda/mount-paths
  install_per_boot

  have="$(installed_version)"
  if [ -z "$have" ] || ! version_ge "$have" "$min_version"; then
    case "$os_id" in
      amzn\ *)
        # S3 user guide, "Prerequisites for S3 Files": on Amazon Linux, "yum -y install amazon-efs-utils".
        if command -v dnf >/dev/null 2>&1; then
          dnf install -y amazon-efs-utils || install_failed "dnf install"
          [ -z "$have" ] || dnf upgrade -y amazon-efs-utils || install_failed "dnf upgrade"
        elif command -v yum >/dev/null 2>&1; then
          yum install -y amazon-efs-utils || install_failed "yum install"
          [ -z "$have" ] || yum update -y amazon-efs-utils || install_failed "yum update"
        else
          log "no dnf or yum: install amazon-efs-utils >= $min_version yourself (https://github.com/aws/efs-utils)"
          exit 1
        fi
        ;;
      rhel\ *|ubuntu\ *|sles\ *|sles_sap\ *|opensuse-leap\ *)
        # Same page, "other supported Linux distributions" (and efs-utils' INSTALL.md, "Install Pre-built
        # efs-utils"): curl https://amazon-efs-utils.aws.com/efs-utils-installer.sh | sudo sh -s -- --install
        log "installing amazon-efs-utils on $os_id with the efs-utils installer"
        installer="$(mktemp)"
        curl -fsSL --retry 5 https://amazon-efs-utils.aws.com/efs-utils-installer.sh > "$installer" \
          || install_failed "downloading the efs-utils installer (from amazon-efs-utils.aws.com: the instance needs a route to the internet)"
        sh "$installer" --install || install_failed "the efs-utils installer"
        rm -f "$installer"
        ;;
      *)
        log "amazon-efs-utils >= $min_version is not installed, and this library installs it only on Amazon Linux, RHEL, Ubuntu and SLES, not on $os_id: install it in the image (https://github.com/aws/efs-utils/blob/master/INSTALL.md)"
        exit 1
        ;;
    esac
    have="$(installed_version)"
    if [ -z "$have" ] || ! version_ge "$have" "$min_version"; then
      log "amazon-efs-utils '$have' is installed, but S3 Files needs >= $min_version"
      exit 1
    fi
  fi

  options="_netdev,nofail,accesspoint=$access_point"
  if [ "$read_only" = "true" ]; then options="$options,ro"; fi
  if ! mkdir -p "$mount_path"; then
    # The likely cause: an immutable directory above it, a mount point of this library's once.
    above="$(dirname "$mount_path")"
    while [ ! -d "$above" ]; do above="$(dirname "$above")"; done
    log "could not create the mount point $mount_path: $above is likely immutable (this library makes a mount point immutable while nothing is mounted there; lsattr -d $above shows an i): run chattr -i $above, or mount elsewhere"
    exit 1
  fi
  # Unmounted, the directory refuses writes: nothing lands on the local disk unnoticed.
  if ! mountpoint -q "$mount_path"; then
    chattr +i "$mount_path" || log "could not make $mount_path immutable: writes there while it is not mounted would stay local"
  fi
  line="$fs_id:/ $mount_path s3files $options 0 0"
  previous="$(awk -v mp="$mount_path" '$2 == mp && $3 == "s3files"' /etc/fstab)"
  # One line per mount path: a re-run (or a changed access point) replaces it.
  if ! { awk -v mp="$mount_path" '!($2 == mp && $3 == "s3files")' /etc/fstab; echo "$line"; } | replace_file /etc/fstab; then
    log "could not write the line of $mount_path in /etc/fstab (it stays as it was)"
    exit 1
  fi
  # Mounted at boot from an older line (another access point, or other options): mount it anew.
  if [ -n "$previous" ] && [ "$previous" != "$line" ] && mountpoint -q "$mount_path"; then
    log "the mount of $mount_path changed: unmounting the previous one"
    umount "$mount_path" || umount -l "$mount_path"
  fi

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
  log "mounted $fs_id ($access_point) at $mount_path with $client_actions"
)`.replace('@PER_BOOT@', () => PER_BOOT_SCRIPT).replace('@REPLACE_FILE@', () => REPLACE_FILE_FUNCTION.replace(/\n/g, '\n  '));

/**
 * The user-data line that calls the function (arguments quoted; tokens are rendered by CloudFormation).
 * It names the mount's client actions: a change of what the mount may do changes the user data, which
 * CloudFormation applies by stopping and starting the instance, so it mounts anew (S3 Files authorizes
 * a client when it mounts); a launch template gets a new version.
 */
export function mountCommand(args: {
  fileSystemId: string; accessPointId: string; mountPath: string; readOnly: boolean; timeoutSeconds: number; clientActions: string;
}): string {
  return `s3files_mount '${args.fileSystemId}' '${args.accessPointId}' '${args.mountPath}' ${args.readOnly ? 'true' : 'false'} ${MIN_EFS_UTILS_VERSION} `
    + `${args.timeoutSeconds} '${args.clientActions}'`;
}
