// The HTTP client of the `simlab serve` benchmarks (load.mjs, restarts.mjs,
// prolific.mjs): one request with a JSON body and a bearer token, its
// status, JSON, Location and round trip in ms; a lost connection or a
// timeout gives status 0. Only node's built-in modules.

import http from "node:http";
import https from "node:https";

// A request function for base (http:// or https://, any certificate)
// over keep-alive connections, at most sockets at once.
export function requester(base, sockets) {
  const url = new URL(base);
  const mod = url.protocol === "https:" ? https : http;
  const agent = new mod.Agent({ keepAlive: true, maxSockets: sockets, rejectUnauthorized: false });
  const request = (method, path, body, token) =>
    new Promise((resolve) => {
      const data = body ? Buffer.from(JSON.stringify(body)) : null;
      const headers = {};
      if (data) {
        headers["Content-Type"] = "application/json";
        headers["Content-Length"] = data.length;
      }
      if (token) headers.Authorization = "Bearer " + token;
      const t0 = process.hrtime.bigint();
      const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
      const req = mod.request({ host: url.hostname, port: url.port, path, method, agent, headers, timeout: 20000 }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          let json = null;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch (e) {
            json = null;
          }
          resolve({ status: res.statusCode, json, location: res.headers.location, ms: ms() });
        });
      });
      req.on("timeout", () => req.destroy());
      req.on("error", () => resolve({ status: 0, json: null, ms: ms() }));
      if (data) req.write(data);
      req.end();
    });
  return { request, close: () => agent.destroy() };
}
