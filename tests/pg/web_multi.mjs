// Participants of two `simlab serve` processes (two stations, each with its
// own database, both syncing to one PostgreSQL server with server-side
// assignment), driven through the browser's protocol over HTTP with node's
// built-in modules: new ids alternate between the two servers, each answers
// to the end. Prints one JSON line: per server the participants enrolled
// and finished.
// usage: node web_multi.mjs BASE_A BASE_B N
import http from "node:http";

const [a, b, n] = [process.argv[2], process.argv[3], Number(process.argv[4])];

function post(base, path, body, token) {
  const u = new URL(path, base);
  const data = Buffer.from(JSON.stringify(body));
  const headers = { "Content-Type": "application/json", "Content-Length": data.length };
  if (token) headers.Authorization = "Bearer " + token;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, json: JSON.parse(Buffer.concat(chunks).toString() || "null") }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

let clock = Date.now();
async function enrol(base, id) {
  const r = await post(base, "/api/start", { participant: id });
  if (r.status !== 200) throw new Error(`${id}: start ${r.status} ${JSON.stringify(r.json)}`);
  return r;
}

async function participant(base, id, r) {
  const token = r.json.token;
  let pos = r.json.pos, view = r.json.view, next = r.json.applied;
  for (let i = 0; i < 500 && view.screen !== "done" && view.screen !== "screened_out"; i++) {
    const ins = [];
    const add = (kind, extra) => ins.push({ n: next++, kind, t: (clock += 900), ...extra });
    if (view.quiz) add("key", { key: String(pos[1] === 1 ? 1 : 2) });
    else if (view.choice && view.choice.value < 0) add("key", { key: view.choice.options[pos[1] % view.choice.options.length].key });
    if (view.rating) add("key", { key: "4" });
    if (view.continue && !view.quiz && (!view.choice || view.rating)) add("continue");
    r = await post(base, "/api/input", { pos, onset: clock - 500, inputs: ins }, token);
    if (r.status !== 200) throw new Error(`${id}: input ${r.status} ${JSON.stringify(r.json)}`);
    if (r.json.pos.join(".") !== pos.join(".")) next = r.json.applied;
    pos = r.json.pos;
    view = r.json.view;
  }
  return view.screen;
}

const out = { a: { enrolled: 0, done: 0 }, b: { enrolled: 0, done: 0 } };
// all of them under way at once, enrolled in turn on one server and the
// other: the server's counts include the other server's participants
const started = [];
for (let i = 0; i < n; i++) {
  const [base, side] = i % 2 ? [b, "b"] : [a, "a"];
  started.push([base, side, `multi-${side}${i}`, await enrol(base, `multi-${side}${i}`)]);
  out[side].enrolled++;
}
await Promise.all(
  started.map(([base, side, id, r]) =>
    participant(base, id, r).then((end) => {
      out[side].done += end === "done";
    })
  )
);
console.log(JSON.stringify(out));
