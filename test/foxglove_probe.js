// A Foxglove WebSocket client (Foxglove's own @foxglove/ws-protocol) that exercises the
// bridge's Foxglove server as the Foxglove app would, and prints what it saw as one JSON
// object. Run by test/test_foxglove.py:
//   node test/foxglove_probe.js URL SUBPROTOCOL [full|assets]
// with NODE_PATH=tools/foxglove_client/node_modules (tools/setup.sh installs them).
"use strict";

const { FoxgloveClient } = require("@foxglove/ws-protocol");
const { parse } = require("@foxglove/rosmsg");
const { MessageReader, MessageWriter } = require("@foxglove/rosmsg2-serialization");
const WebSocket = require("ws");

const [url, subprotocol, mode = "full"] = process.argv.slice(2);
const out = { statuses: [], channels: [], services: [] };

function done(code) {
  process.stdout.write(JSON.stringify(out, (_, v) => (typeof v === "bigint" ? Number(v) : v)));
  process.exit(code);
}
setTimeout(() => { out.error = `timed out at step ${out.step}`; done(1); }, 45000);

const ws = new WebSocket(url, [subprotocol]);
ws.on("unexpected-response", (_req, res) => {
  out.refused = { status: res.statusCode, message: res.statusMessage };
  done(0);
});
ws.on("error", (err) => { out.error = String(err.message || err); done(0); });
const client = new FoxgloveClient({ ws });

const waiters = [];
function waitFor(event, test, what) {
  return new Promise((resolve) => {
    const listener = (msg) => {
      if (test(msg)) { client.off(event, listener); resolve(msg); }
    };
    client.on(event, listener);
    waiters.push(what);
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const bytes = (view) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
const reader = (schema) => new MessageReader(parse(schema, { ros2: true }));
const writer = (schema) => new MessageWriter(parse(schema, { ros2: true }));

const advertised = [];
const services = [];
client.on("advertise", (c) => advertised.push(...c));
client.on("advertiseServices", (s) => services.push(...s));
client.on("status", (msg) => out.statuses.push({ level: msg.level, message: msg.message }));
client.on("time", (msg) => { out.time = msg.timestamp; });

async function main() {
  out.step = "serverInfo";
  const info = await waitFor("serverInfo", () => true);
  out.subprotocol = ws.protocol;
  out.capabilities = info.capabilities;
  out.supportedEncodings = info.supportedEncodings;
  await sleep(1000);  // the channels and services are advertised after serverInfo
  const channels = advertised;
  for (const c of channels) out.channels.push({ id: c.id, topic: c.topic, encoding: c.encoding,
    schemaName: c.schemaName, schemaEncoding: c.schemaEncoding, schema: c.schema });
  const byTopic = Object.fromEntries(channels.map((c) => [c.topic, c]));

  // /joint_states: subscribe and decode with the schema the server gave.
  out.step = "joint_states";
  const js = byTopic["/joint_states"];
  const jsReader = reader(js.schema);
  client.subscribe(js.id);
  const first = await waitFor("message", () => true);
  const state = jsReader.readMessage(bytes(first.data));
  out.joint_state = { name: state.name, position: Array.from(state.position),
    stamp: state.header.stamp, timestamp: first.timestamp };

  // robot_description: latched, so it comes when subscribed
  out.step = "robot_description";
  const rd = byTopic["/robot_description"];
  client.subscribe(rd.id);
  const urdfMsg = await waitFor("message", (m) => m.subscriptionId === 1);
  const urdf = reader(rd.schema).readMessage(bytes(urdfMsg.data)).data;
  out.urdf_length = urdf.length;

  // a mesh the URDF names, then a file it does not name
  out.step = "assets";
  const mesh = /<mesh\s[^>]*filename="([^"]+)"/.exec(urdf);
  out.mesh_uri = mesh ? mesh[1] : null;
  if (mesh) {
    client.fetchAsset(mesh[1], 1);
    const asset = await waitFor("fetchAssetResponse", (m) => m.requestId === 1);
    out.mesh = { status: asset.status, length: asset.data ? asset.data.byteLength : 0,
      head: asset.data ? Buffer.from(bytes(asset.data)).subarray(0, 80).toString("latin1") : "" };
  }
  client.fetchAsset("file:///etc/passwd", 2);
  const refused = await waitFor("fetchAssetResponse", (m) => m.requestId === 2);
  out.forbidden_asset = { status: refused.status, error: refused.error };
  if (mode === "assets") { client.close(); done(0); return; }

  // parameters
  out.step = "parameters";
  client.setParameters([{ name: "/body_bridge.real_time_factor", value: 2.0 }], "set1");
  const set = await waitFor("parameterValues", (m) => m.id === "set1");
  out.set_parameters = set.parameters;
  client.getParameters(["/body_bridge.real_time_factor", "/body_bridge.model"], "get1");
  out.get_parameters = (await waitFor("parameterValues", (m) => m.id === "get1")).parameters;
  client.setParameters([{ name: "/body_bridge.real_time_factor", value: -3.0 }], "set2");
  out.bad_parameter = (await waitFor("parameterValues", (m) => m.id === "set2")).parameters;

  // services: pause, step, read the answer
  out.step = "services";
  for (const s of services) out.services.push({ name: s.name, type: s.type });
  const byName = Object.fromEntries(services.map((s) => [s.name, s]));
  let callId = 0;
  async function call(name, request) {
    const service = byName[name];
    const id = ++callId;
    client.sendServiceCallRequest({ serviceId: service.id, callId: id, encoding: "cdr",
      data: writer(service.request.schema).writeMessage(request) });
    const answer = await Promise.race([
      waitFor("serviceCallResponse", (m) => m.callId === id),
      waitFor("serviceCallFailure", (m) => m.callId === id)]);
    if (answer.op === "serviceCallFailure") return { failure: answer.message };
    return reader(service.response.schema).readMessage(bytes(answer.data));
  }
  out.paused = await call("/body_bridge/set_paused", { data: true });
  out.stepped = await call("/body_bridge/step", {});
  out.stepped_again = await call("/body_bridge/step", {});
  out.resumed = await call("/body_bridge/set_paused", { data: false });

  // client publishing: a joint command, and the joint moves
  out.step = "publish";
  const jcSchema = js.schema;  // sensor_msgs/msg/JointState, as the server advertised it
  const jc = client.advertise({ topic: "/joint_commands", encoding: "cdr",
    schemaName: "sensor_msgs/msg/JointState", schemaEncoding: "ros2msg", schema: jcSchema });
  await sleep(300);
  const command = writer(jcSchema).writeMessage({ header: { stamp: { sec: 0, nanosec: 0 },
    frame_id: "" }, name: ["shoulder_yaw"], position: [0.5], velocity: [], effort: [] });
  const deadline = Date.now() + 20000;
  out.moved = null;
  while (Date.now() < deadline && out.moved === null) {
    client.sendMessage(jc, command);
    const m = await waitFor("message", (x) => x.subscriptionId === 0);
    const s = jsReader.readMessage(bytes(m.data));
    const q = s.position[s.name.indexOf("shoulder_yaw")];
    if (Math.abs(q - 0.5) < 0.05) out.moved = q;
    await sleep(100);
  }

  // bad input: a topic the bridge does not subscribe, bytes that are no JointState, a huge
  // message, a subscription to a channel that does not exist
  out.step = "bad input";
  const before = out.statuses.length;
  client.advertise({ topic: "/nope", encoding: "cdr", schemaName: "std_msgs/msg/String" });
  const wrong = client.advertise({ topic: "/joint_commands", encoding: "json",
    schemaName: "sensor_msgs/msg/JointState" });
  client.sendMessage(wrong, new TextEncoder().encode("{}"));
  client.sendMessage(jc, new Uint8Array([1, 2, 3]));
  client.sendMessage(jc, new Uint8Array(2 << 20));
  client.subscribe(999999);
  await sleep(1500);
  out.bad_statuses = out.statuses.slice(before);

  // still alive: joint_states still flow
  out.step = "alive";
  const after = await waitFor("message", (x) => x.subscriptionId === 0);
  out.alive_stamp = jsReader.readMessage(bytes(after.data)).header.stamp;
  client.close();
  done(0);
}

client.on("open", () => { main().catch((err) => { out.error = String(err.stack || err); done(1); }); });
