// The browser's journal: every input is written to IndexedDB before it is
// sent, and stays there until the server's position has moved past the
// screen it answered (the step is committed). A reload, a closed tab or a
// lost connection finds the inputs here and sends them again; the server
// applies each (participant, step, attempt, screen, number) once.

const DB_NAME = "simlab-journal";
const STORE = "inputs";
const ONSETS = "onsets";

let dbPromise = null;
let memory = null; // when IndexedDB is unavailable (private modes): memory

function open() {
  if (dbPromise) return dbPromise;
  dbPromise = new Promise((resolve) => {
    let req;
    try {
      req = indexedDB.open(DB_NAME, 1);
    } catch (e) {
      resolve(null);
      return;
    }
    req.onupgradeneeded = () => {
      const db = req.result;
      const s = db.createObjectStore(STORE, { keyPath: "id" });
      s.createIndex("ext", "ext");
      db.createObjectStore(ONSETS, { keyPath: "id" });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
    req.onblocked = () => resolve(null);
  });
  return dbPromise;
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

export function posKey(pos) {
  return pos.join(".");
}

function inputId(ext, pos, n) {
  return `${ext}|${posKey(pos)}|${n}`;
}

// Stores one input durably (resolves once the transaction committed).
export async function put(ext, pos, input) {
  const rec = { id: inputId(ext, pos, input.n), ext, pos, ...input };
  const db = await open();
  if (!db) {
    memory = memory || new Map();
    memory.set(rec.id, rec);
    return;
  }
  const tx = db.transaction(STORE, "readwrite", { durability: "strict" });
  tx.objectStore(STORE).put(rec);
  await done(tx);
}

// The onset measured for a screen (so that a resend after a server restart
// carries it).
export async function putOnset(ext, pos, onset) {
  const rec = { id: `${ext}|${posKey(pos)}`, ext, pos, ...onset };
  const db = await open();
  if (!db) {
    memory = memory || new Map();
    memory.set("onset:" + rec.id, rec);
    return;
  }
  const tx = db.transaction(ONSETS, "readwrite", { durability: "strict" });
  tx.objectStore(ONSETS).put(rec);
  await done(tx);
}

export async function getOnset(ext, pos) {
  const id = `${ext}|${posKey(pos)}`;
  const db = await open();
  if (!db) return memory ? memory.get("onset:" + id) : undefined;
  const tx = db.transaction(ONSETS, "readonly");
  const req = tx.objectStore(ONSETS).get(id);
  return new Promise((resolve) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(undefined);
  });
}

// Every input of participant ext still in the journal.
export async function all(ext) {
  const db = await open();
  if (!db) {
    return memory ? [...memory.values()].filter((r) => r.ext === ext && r.kind) : [];
  }
  const tx = db.transaction(STORE, "readonly");
  const req = tx.objectStore(STORE).index("ext").getAll(ext);
  return new Promise((resolve) => {
    req.onsuccess = () => resolve(req.result || []);
    req.onerror = () => resolve([]);
  });
}

function cmp(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

// Drops what the server's position pos made obsolete: inputs and onsets of
// every other screen (committed before, or never reachable).
export async function prune(ext, pos) {
  const db = await open();
  if (!db) {
    if (memory) {
      for (const [k, r] of memory) if (r.ext === ext && cmp(r.pos, pos) !== 0) memory.delete(k);
    }
    return;
  }
  const tx = db.transaction([STORE, ONSETS], "readwrite");
  for (const name of [STORE, ONSETS]) {
    const st = tx.objectStore(name);
    const req = st.openCursor();
    req.onsuccess = () => {
      const c = req.result;
      if (!c) return;
      if (c.value.ext === ext && cmp(c.value.pos, pos) !== 0) c.delete();
      c.continue();
    };
  }
  await done(tx);
}
