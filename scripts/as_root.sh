# Sourced by the scripts that install Debian packages: as_root CMD... runs
# CMD as root -- directly in a root shell (where sudo may not exist), with
# sudo otherwise; without sudo it says what to run as root and fails.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "simlab: run as root (there is no sudo): $*" >&2
        return 1
    fi
}

# Whether as_root can run anything: root, or sudo installed.
root_possible() {
    [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1
}
