// web/journal.js: every input stays in IndexedDB until the server has moved
// past its screen; onsets are kept for a resend; without IndexedDB, memory.

import { test } from "node:test";
import assert from "node:assert/strict";
import { install, close } from "./fakeidb.mjs";

install();
const journal = await import("../../../web/journal.js");

test("inputs are kept per participant and screen, pruned past it", async () => {
  await journal.put("p1", [3, 1, 0], { n: 0, kind: "choose", t: 10, value: 1 });
  await journal.put("p1", [3, 1, 0], { n: 1, kind: "continue", t: 20 });
  await journal.put("p1", [2, 1, 0], { n: 0, kind: "choose", t: 5, value: 0 });
  await journal.put("p2", [3, 1, 0], { n: 0, kind: "choose", t: 7, value: 0 });
  const all = await journal.all("p1");
  assert.equal(all.length, 3);
  assert.deepEqual(all.map((r) => r.kind).sort(), ["choose", "choose", "continue"]);
  await journal.putOnset("p1", [3, 1, 0], { t: 9.5, method: "Element Timing renderTime (the frame presented)" });
  assert.equal((await journal.getOnset("p1", [3, 1, 0])).t, 9.5);
  await journal.prune("p1", [3, 1, 0]); // the server is at screen 3
  const left = await journal.all("p1");
  assert.deepEqual(
    left.map((r) => r.pos.join(".")),
    ["3.1.0", "3.1.0"]
  );
  assert.equal((await journal.all("p2")).length, 1, "another participant's inputs stay");
  await journal.prune("p1", [4, 1, 0]);
  assert.equal((await journal.all("p1")).length, 0);
  assert.equal(await journal.getOnset("p1", [3, 1, 0]), undefined);
  close();
});

test("the same input put twice is one input", async () => {
  await journal.put("p3", [1, 1, 0], { n: 0, kind: "choose", t: 1, value: 0 });
  await journal.put("p3", [1, 1, 0], { n: 0, kind: "choose", t: 1, value: 0 });
  assert.equal((await journal.all("p3")).length, 1);
});
