#!/usr/bin/env bash
# Render the pictures of the README and docs/: models by python -m body_bridge snapshot (offscreen,
# no display needed), and recorded runs in Rerun's web viewer in headless Chromium.
# Run from the repository root after tools/setup.sh; the real models are in ../shared/models.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
py=.venv/bin/python
out=docs/images
models=../shared/models
size=(--width 480 --height 360)
arm=(--position shoulder_pitch=0.3 --position elbow_pitch=1.5 --position wrist_pitch=1.75)

$py -m body_bridge snapshot sample_arm -o $out/sample_arm.png "${size[@]}" "${arm[@]}"
$py -m body_bridge snapshot sample_arm -o $out/sample_arm_hand_camera.png --camera hand_camera \
  "${arm[@]}"
$py -m body_bridge snapshot $models/choreonoid/share/model/SR1/SR1.body -o $out/sr1.png \
  "${size[@]}" 2>/dev/null
$py -m body_bridge snapshot $models/openrave/src/robots/barrettwam.robot.xml \
  -o $out/barrett_wam.png "${size[@]}" --azimuth 50 --elevation 20 \
  --position Shoulder_Pitch=0.7 --position Elbow=1.6 --position Wrist_Pitch=0.6 2>/dev/null
$py -m body_bridge snapshot $models/choreonoid/share/model/AizuSpider/AizuSpiderDA.body \
  -o $out/aizu_spider.png "${size[@]}" 2>/dev/null
$py -m body_bridge snapshot $models/chrono/historical/58ece18a/data/yaml/models/slider_crank.yaml \
  -o $out/slider_crank.png "${size[@]}" --azimuth 80 --elevation 30 --time 0.5 2>/dev/null
$py -m body_bridge snapshot $models/openrave/src/robots/pr2-beta-static.zae -o $out/pr2.png \
  "${size[@]}" --azimuth 40 --elevation 20 --position torso_lift_joint=0.2 \
  --position r_shoulder_pan_joint=-0.4 --position r_shoulder_lift_joint=0.2 \
  --position r_elbow_flex_joint=-1.0 --position l_shoulder_pan_joint=0.4 \
  --position l_shoulder_lift_joint=0.2 --position l_elbow_flex_joint=-1.0 \
  --position head_tilt_joint=0.3 2>/dev/null
$py -m body_bridge snapshot $models/choreonoid/share/model/Tank/Tank.body -o $out/tank.png \
  "${size[@]}" --time 0.5 --position TURRET_Y=0.6 --position TURRET_P=-0.2 2>/dev/null

# Recorded runs in Rerun's web viewer, screenshot in headless Chromium (docs/rerun/shoot.py;
# needs `apt-get install chromium` and Rerun in tools/rerun_cli): the sample arm following
# docs/rerun/arm_moves.csv, and the Tank around a square (docs/rerun/tank_square.yaml; its
# cameras are not recorded: the picture does not show them and they cost most of the time).
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
$py -m body_bridge record sample_arm -o $runs/arm --duration 2 \
  --commands docs/rerun/arm_moves.csv
$py docs/rerun/shoot.py $runs/arm docs/rerun/arm.rbl $out/rerun_sample_arm.png
$py -m body_bridge record $models/choreonoid/share/model/Tank/Tank.body -o $runs/tank \
  --duration 17.5 --commands docs/rerun/tank_square.yaml \
  --topics /tf /tf_static /robot_description /joint_states /GYRO /odom 2>/dev/null
$py docs/rerun/shoot.py $runs/tank docs/rerun/tank.rbl $out/rerun_tank.png

# The example sweep's table as a picture (docs/sweeps.md); the sweep exits 1: half its runs
# put the crate out of reach, and fail.
sweep_out=$(mktemp -d)
$py -m body_bridge sweep examples/sweep/crate_push.sweep.yaml -o "$sweep_out/push" >/dev/null \
  2>&1 || [ $? = 1 ]
cp "$sweep_out/push/results.png" $out/sweep_results.png
rm -rf "$sweep_out"
