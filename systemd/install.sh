#!/usr/bin/env bash
# Installs blockref as a systemd service on Raspberry Pi OS (bookworm or later), from this
# checkout. Safe to run again: every step checks what is already there (upgrades reinstall the
# code and restart the service, and keep /etc/blockref/config.toml).
#
#   sudo systemd/install.sh             install, enable and (re)start the service
#   sudo systemd/install.sh --no-start  install and enable, but leave it stopped
#   systemd/install.sh --dry-run        print what would be done, change nothing (no root needed)
#
# On a first install it asks for the dashboard PIN that guards the referee controls (or reads
# it from BLOCKREF_PIN); with none the dashboard stays read-only until web.pin is set.
#
# What it does: apt packages (picamera2 and numpy/OpenCV from apt), the `blockref` system user,
# the code in /opt/blockref/src, a venv at /opt/blockref/venv that sees apt's packages
# (--system-site-packages), the project installed there with the `pi` extra while keeping
# apt's numpy, /etc/blockref/config.toml from the defaults, SPI enabled for the LEDs, and the
# unit systemd/blockref.service enabled. See docs/raspberry-pi.md.
set -euo pipefail

PREFIX=/opt/blockref
CONFIG_DIR=/etc/blockref
UNIT_FILE=/etc/systemd/system/blockref.service
SERVICE=blockref.service
ACCOUNT=blockref
DEVICE_GROUPS=(video gpio spi)
# picamera2 and numpy come from apt (the Raspberry Pi camera stack is built against apt's numpy);
# python3-opencv is apt's OpenCV for the rest of the system; lgpio and spidev from apt satisfy
# the `pi` extra without compiling; python3-dev and gcc build rpi-ws281x when no wheel fits.
APT_PACKAGES=(python3-picamera2 python3-numpy python3-opencv python3-venv python3-lgpio
              python3-spidev python3-dev gcc)
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DRY_RUN=0
START=1
REBOOT_NEEDED=0

usage() {
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

fail() {
    echo "install.sh: $*" >&2
    exit 1
}

# Runs a command, or only prints it (shell-quoted, after "+ ") with --dry-run.
run() {
    if ((DRY_RUN)); then
        printf '+'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

step() {
    printf '\n== %s\n' "$*"
}

parse_args() {
    while (($#)); do
        case "$1" in
            --dry-run) DRY_RUN=1 ;;
            --no-start) START=0 ;;
            -h | --help) usage; exit 0 ;;
            *) echo "install.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
        esac
        shift
    done
}

check_host() {
    [[ -f "$SRC/pyproject.toml" && -f "$SRC/systemd/blockref.service" ]] \
        || fail "run me from a blockref checkout ($SRC has no pyproject.toml)"
    if ((DRY_RUN)); then
        echo "dry run: nothing will be changed; commands are printed after '+'"
        return
    fi
    ((EUID == 0)) || fail "run me as root: sudo $0"
    command -v apt-get >/dev/null || fail "apt-get not found: this installer is for Raspberry Pi OS"
    command -v systemctl >/dev/null || fail "systemctl not found: this installer needs systemd"
}

install_apt_packages() {
    step "apt packages: ${APT_PACKAGES[*]}"
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        "${APT_PACKAGES[@]}"
}

create_account() {
    step "user $ACCOUNT and device groups"
    local group
    for group in "${DEVICE_GROUPS[@]}"; do
        if ! getent group "$group" >/dev/null; then
            echo "group $group is missing (not Raspberry Pi OS?): creating it, but no device"
            echo "belongs to it until a udev rule says so"
            run groupadd --system "$group"
        fi
    done
    if getent passwd "$ACCOUNT" >/dev/null; then
        echo "user $ACCOUNT exists"
    else
        run useradd --system --user-group --home-dir "/var/lib/$ACCOUNT" --no-create-home \
            --shell /usr/sbin/nologin --comment "blockref referee" "$ACCOUNT"
    fi
}

copy_tree() {
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude='__pycache__' \
        --exclude='*.egg-info' --exclude=./.pytest_cache --exclude=./.mypy_cache \
        --exclude=./.hypothesis --exclude=./build --exclude=./dist -cf - . \
        | tar -C "$PREFIX/src.new" --no-same-owner -xf -
}

copy_source() {
    step "code in $PREFIX/src"
    run install -d -m 0755 "$PREFIX"
    run rm -rf "$PREFIX/src.new"
    run install -d -m 0755 "$PREFIX/src.new"
    if ((DRY_RUN)); then
        echo "+ tar -C $SRC ... -cf - . | tar -C $PREFIX/src.new -xf -"
    else
        copy_tree
    fi
    run rm -rf "$PREFIX/src.old"
    if [[ -d "$PREFIX/src" ]]; then
        run mv "$PREFIX/src" "$PREFIX/src.old"
    fi
    run mv "$PREFIX/src.new" "$PREFIX/src"
    run rm -rf "$PREFIX/src.old"
}

make_venv() {
    step "venv in $PREFIX/venv (sees apt's packages)"
    local cfg="$PREFIX/venv/pyvenv.cfg"
    if [[ -f "$cfg" ]] && grep -q '^include-system-site-packages = true' "$cfg"; then
        echo "venv exists and sees the system packages"
        return
    fi
    if [[ -e "$PREFIX/venv" ]]; then
        run rm -rf "$PREFIX/venv"  # made without --system-site-packages: start again
    fi
    # --system-site-packages: picamera2 (and libcamera, pykms) exist only as apt packages.
    run /usr/bin/python3 -m venv --system-site-packages "$PREFIX/venv"
}

apt_numpy_version() {
    /usr/bin/python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null \
        || echo "APT-NUMPY-VERSION"
}

# The numpy 2 ABI trap: apt's python3-picamera2 and the compiled modules it loads (such as
# python3-simplejpeg) are built against apt's numpy (1.24 on bookworm). If pip puts numpy 2
# into the venv, it shadows apt's and `import picamera2` dies with "numpy.dtype size changed,
# may indicate binary incompatibility". pip would do exactly that for opencv-python-headless
# >= 4.12, which requires numpy >= 2. So numpy is pinned to the very version apt installed
# (numpy < 2 on bookworm) and, while that is numpy 1.x, OpenCV wheels to < 4.12 (the newest
# built for numpy 1.x).
write_constraints() {
    step "pip constraints in $PREFIX/constraints.txt (keep apt's numpy)"
    local numpy_version opencv_line=""
    numpy_version="$(apt_numpy_version)"
    if [[ "$numpy_version" == 1.* || "$numpy_version" == APT-* ]]; then
        opencv_line="opencv-python-headless<4.12"
    fi
    local content="numpy==$numpy_version"$'\n'"$opencv_line"
    if ((DRY_RUN)); then
        printf '+ write %s:\n%s\n' "$PREFIX/constraints.txt" "$content"
    else
        printf '%s\n' "$content" >"$PREFIX/constraints.txt"
    fi
}

pip_install() {
    step "blockref with the pi extra into the venv"
    run "$PREFIX/venv/bin/pip" install --upgrade --upgrade-strategy only-if-needed \
        --constraint "$PREFIX/constraints.txt" "$PREFIX/src[pi]"
    # Fails loudly (set -e) if the trap was not avoided or the camera stack does not import.
    run "$PREFIX/venv/bin/python" -c \
        "import numpy, cv2, picamera2; print('numpy', numpy.__version__, 'OpenCV', cv2.__version__)"
}

install_config() {
    step "configuration in $CONFIG_DIR"
    run install -d -m 0750 -o root -g "$ACCOUNT" "$CONFIG_DIR"
    if [[ -e "$CONFIG_DIR/config.toml" ]]; then
        echo "keeping $CONFIG_DIR/config.toml"
    else
        run install -m 0640 -o root -g "$ACCOUNT" "$PREFIX/src/pi/default-config.toml" \
            "$CONFIG_DIR/config.toml"
        set_pin "$CONFIG_DIR/config.toml"
    fi
}

# Asks for the dashboard PIN (or takes BLOCKREF_PIN) and writes its salted hash as web.pin.
set_pin() {
    local file=$1 pin=${BLOCKREF_PIN:-}
    if [[ -z "$pin" && -t 0 ]] && ((!DRY_RUN)); then
        read -rsp "Dashboard PIN for the referee controls (empty: read-only): " pin
        echo
    fi
    if [[ -z "$pin" ]]; then
        echo "no PIN: the dashboard stays read-only (add one with: python -m pi.config hash-pin)"
        return
    fi
    if ((DRY_RUN)); then
        echo "+ write web.pin (the PIN's salted hash) into $file"
        return
    fi
    local line
    line=$(printf '%s\n' "$pin" | "$PREFIX/venv/bin/python" -m pi.config hash-pin)
    PIN_LINE=$line "$PREFIX/venv/bin/python" - "$file" <<'PY'
import os, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
marker = '# pin = "pbkdf2_sha256$100000$<salt>$<hash>"'
if marker not in text:
    sys.exit("install.sh: the config has no web.pin placeholder line; set web.pin by hand")
open(path, "w", encoding="utf-8").write(text.replace(marker, os.environ["PIN_LINE"], 1))
PY
    echo "dashboard PIN set"
}

enable_spi() {
    step "SPI for the LEDs"
    if ! command -v raspi-config >/dev/null; then
        echo "raspi-config not found: enable SPI yourself (dtparam=spi=on in config.txt)"
        return
    fi
    if [[ "$(raspi-config nonint get_spi)" == 0 ]]; then
        echo "SPI is enabled"
    else
        run raspi-config nonint do_spi 0
        REBOOT_NEEDED=1
    fi
}

install_unit() {
    step "systemd unit $SERVICE"
    run install -m 0644 "$PREFIX/src/systemd/blockref.service" "$UNIT_FILE"
    run systemctl daemon-reload
    run systemctl enable "$SERVICE"
    if ((START && !REBOOT_NEEDED)); then
        run systemctl restart "$SERVICE"
    fi
}

report() {
    step "done"
    if ((REBOOT_NEEDED)); then
        echo "SPI was just enabled: reboot, and the service starts by itself."
    elif ((!START)); then
        echo "start it with: sudo systemctl start $SERVICE"
    fi
    echo "logs: journalctl -u $SERVICE -f    status: systemctl status $SERVICE"
    echo "settings: $CONFIG_DIR/config.toml  dashboard: http://$(hostname).local:8000/"
}

main() {
    parse_args "$@"
    check_host
    install_apt_packages
    create_account
    copy_source
    make_venv
    write_constraints
    pip_install
    install_config
    enable_spi
    install_unit
    report
}

main "$@"
