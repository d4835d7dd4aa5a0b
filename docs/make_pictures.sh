#!/usr/bin/env bash
# Render the README's pictures (python -m body_bridge snapshot; offscreen, no display needed).
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
$py -m body_bridge snapshot $models/choreonoid/share/model/Tank/Tank.body -o $out/tank.png \
  "${size[@]}" --time 0.5 --position TURRET_Y=0.6 --position TURRET_P=-0.2 2>/dev/null
