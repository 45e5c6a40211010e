// simlab serve behind nginx with TLS, configured by the very file
// docs/online.md tells a lab to install (docs/online/nginx-simlab.conf,
// its CHANGE lines replaced): a self-signed certificate, nginx on a high
// port of this machine, a whole participant in chromium through https,
// the request size limit at the proxy, plain http redirected.

import { join } from "node:path";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { check, report, tempDir, bundleCopy, startServer, browser, link, walk, sqlite, sleep } from "./lib.mjs";

const NGINX = process.env.SIMLAB_NGINX || "/usr/sbin/nginx";
function freePort() {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });
}

const dir = tempDir("nginx");
const study = bundleCopy(process.env.STUDY_FORWARD, join(dir, "study"), (j) => {
  j.online = { completion_code: "NGINX1" };
});
const db = join(dir, "web.db");
const srv = await startServer(study, db);
const upstream = /:(\d+)\/$/.exec(srv.base)[1];
const https = await freePort();
const http = await freePort();
execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
let conf = readFileSync(process.env.NGINX_CONF, "utf8");
conf = conf
  .replace("server 127.0.0.1:8080;", `server 127.0.0.1:${upstream};`)
  .replaceAll("server_name study.example.org;", "server_name localhost;")
  .replace("listen 80;", `listen 127.0.0.1:${http};`)
  .replace("listen 443 ssl http2;", `listen 127.0.0.1:${https} ssl http2;`)
  .replace(/ssl_certificate .*;/, `ssl_certificate ${join(dir, "cert.pem")};`)
  .replace(/ssl_certificate_key .*;/, `ssl_certificate_key ${join(dir, "key.pem")};`)
  .replace("https://$host$request_uri", `https://$host:${https}$request_uri`);
check(conf.includes(`127.0.0.1:${upstream}`) && conf.includes(join(dir, "cert.pem")), "the documented file's CHANGE lines are where the docs say");
mkdirSync(join(dir, "tmp"));
writeFileSync(join(dir, "simlab.conf"), conf);
writeFileSync(
  join(dir, "nginx.conf"),
  `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 256; }
http { access_log ${dir}/access.log; client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp;
  fastcgi_temp_path ${dir}/tmp; uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  include ${dir}/simlab.conf; }
`
);
execFileSync(NGINX, ["-t", "-q", "-p", dir, "-c", join(dir, "nginx.conf")]);
const ng = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: "ignore" });
await sleep(700);
const base = `https://localhost:${https}/`;

const b = await browser("nginx", { ignoreHTTPSErrors: true });
await b.page.goto(link(base, "viaproxy"));
const last = await walk(b.page);
check(last.view.screen === "done", "a whole participant through nginx and TLS");
await b.page.waitForSelector("#completion-code");
check((await b.page.textContent("#completion-code")) === "NGINX1", "the completion code");
const headers = await b.page.evaluate(async () => {
  const r = await fetch("/web/main.js");
  return [r.headers.get("content-security-policy"), r.headers.get("strict-transport-security")];
});
check(/default-src 'self'/.test(headers[0] || ""), "simlab's security headers pass the proxy");
check(/max-age/.test(headers[1] || ""), "nginx adds HSTS");
const big = await b.page.evaluate(async () => (await fetch("/api/start", { method: "POST", body: "a".repeat(100000) })).status);
check(big === 413, `nginx refuses a body over 64 kB (${big})`);
const put = await b.page.evaluate(async () => (await fetch("/web/main.js", { method: "PUT", body: "x" })).status);
check(put === 403, `only GET and HEAD outside the API (${put})`);
await b.close();
const redirect = execFileSync("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", `http://127.0.0.1:${http}/?participant=x`], { encoding: "utf8" });
check(/^301 https:\/\/[^/]+:\d+\//.test(redirect), "http is redirected to https: " + redirect);
const pid = sqlite(db, "SELECT id FROM participant WHERE code='viaproxy'");
check(sqlite(db, `SELECT count(*) FROM response WHERE participant='${pid}' AND done=1`) === sqlite(db, `SELECT count(*) FROM trial WHERE participant='${pid}'`), "every step stored");
ng.kill("SIGTERM");
await srv.stop();

// several servers: the split configuration routes every id to one of them
const s1 = await startServer(process.env.STUDY_FORWARD, join(dir, "s1.db"), ["--station", "s1"]);
const s2 = await startServer(process.env.STUDY_FORWARD, join(dir, "s2.db"), ["--station", "s2"]);
const port = (x) => /:(\d+)\/$/.exec(x.base)[1];
const sport = await freePort();
let split = readFileSync(process.env.NGINX_CONF.replace(".conf", "-split.conf"), "utf8")
  .replace("server 127.0.0.1:8081;", `server 127.0.0.1:${port(s1)};`)
  .replace("server 127.0.0.1:8082;", `server 127.0.0.1:${port(s2)};`)
  .replace("server_name study.example.org;", "server_name localhost;")
  .replace("listen 443 ssl http2;", `listen 127.0.0.1:${sport} ssl http2;`)
  .replace(/ssl_certificate .*;/, `ssl_certificate ${join(dir, "cert.pem")};`)
  .replace(/ssl_certificate_key .*;/, `ssl_certificate_key ${join(dir, "key.pem")};`);
writeFileSync(join(dir, "simlab.conf"), split);
execFileSync(NGINX, ["-t", "-q", "-p", dir, "-c", join(dir, "nginx.conf")]);
const ng2 = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: "ignore" });
await sleep(700);
const sbase = `https://localhost:${sport}/`;
const where = (id) => ["s1", "s2"].filter((s) => sqlite(join(dir, `${s}.db`), `SELECT count(*) FROM participant WHERE code='${id}'`) === "1");
const ids = [];
for (let i = 0; ids.length < 2 && i < 40; i++) {
  // two ids that nginx sends to different servers (the path of the page;
  // before the consent no server has stored anything)
  const id = `split${i}`;
  const c = await browser("split-" + i, { ignoreHTTPSErrors: true });
  await c.page.goto(link(sbase, id));
  await c.page.waitForFunction(() => window.simlab && window.simlab.ready(), null, { timeout: 20000 });
  const at = new URL(c.page.url()).pathname.replaceAll("/", "");
  await c.close();
  check(where(id).length === 0, `${id}: nothing stored before the consent`);
  if (!ids.some((x) => x.at === at)) ids.push({ id, at });
}
check(ids.length === 2, "participants reach both servers");
for (const { id, at } of ids) {
  const c = await browser("again-" + id, { ignoreHTTPSErrors: true }); // another browser
  await c.page.goto(link(sbase, id));
  const last = await walk(c.page);
  check(last.view.screen === "done" && new URL(c.page.url()).pathname === `/${at}/`, `${id}: the same server (${at}) from another browser, to the end`);
  await c.close();
  check(where(id).length === 1, `${id}: on one server only`);
}
ng2.kill("SIGTERM");
await s1.stop();
await s2.stop();
process.exit(report());
