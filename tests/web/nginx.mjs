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
process.exit(report());
