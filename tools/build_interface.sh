#!/usr/bin/env bash
# Build a ROS 2 interface package from its definitions into a venv of ROS 2 wheels, with the
# rosidl toolchain those wheels carry (tools/requirements-build.txt). tools/setup.sh calls it
# for the interfaces a ROS installation has but PyPI does not (tf2_msgs, control_msgs,
# simulation_interfaces).
#
#   bash tools/build_interface.sh VENV SOURCE_DIR CHECK_MODULE
#
# SOURCE_DIR holds the package's CMakeLists.txt (which calls tools/interface.cmake), package.xml
# and definitions; CHECK_MODULE is a Python module that must import afterwards
# (control_msgs.action). About 10 s per package.
set -euo pipefail

venv=$(cd "$1" && pwd) src=$(cd "$2" && pwd) module=$3  # absolute: the build runs elsewhere
py="$venv/bin/python"
name=$(basename "$src")
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
printf 'setup: building the %s interface into the venv\n' "$name" >&2
include=$("$py" -c 'import sysconfig; print(sysconfig.get_path("include"))')
(
  export AMENT_PREFIX_PATH="$venv" _ROS_WHEELS_BOOTSTRAP_COMPLETE=1
  cd "$build"
  cmake "$src" -DCMAKE_PREFIX_PATH="$venv" -DCMAKE_INSTALL_PREFIX="$venv" \
    -DPython3_EXECUTABLE="$py" -DPYTHON_INCLUDE_DIR="$include" -DBUILD_TESTING=OFF \
    >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
  make -j"$(nproc)" install >"$build/build.log" 2>&1 || { tail -50 "$build/build.log" >&2; exit 1; }
)
"$py" -c "import $module" || {
  printf 'setup: error: %s does not import after the build\n' "$module" >&2
  exit 1
}
