// A small IndexedDB for web/journal.js's tests under node: databases of
// object stores with a key path, indexes, get, getAll, put, cursors with
// delete and continue, transactions that complete after their requests.
// install() makes it the global indexedDB; close() drops the databases
// (as a new browser profile would).

const dbs = new Map();

function later(f) {
  setTimeout(f, 0);
}

function request(tx, run) {
  const req = { result: undefined, error: null, onsuccess: null, onerror: null };
  tx.pending++;
  later(() => {
    try {
      req.result = run();
      if (req.onsuccess) req.onsuccess({ target: req });
    } catch (e) {
      req.error = e;
      if (req.onerror) req.onerror({ target: req });
    }
    tx.done();
  });
  return req;
}

class Store {
  constructor(tx, data) {
    this.tx = tx;
    this.data = data;
  }
  put(rec) {
    return request(this.tx, () => {
      this.data.rows.set(rec[this.data.keyPath], structuredClone(rec));
      return rec[this.data.keyPath];
    });
  }
  get(key) {
    return request(this.tx, () => structuredClone(this.data.rows.get(key)));
  }
  index(name) {
    const field = this.data.indexes.get(name);
    return {
      getAll: (value) => request(this.tx, () => [...this.data.rows.values()].filter((r) => r[field] === value).map((r) => structuredClone(r))),
    };
  }
  openCursor() {
    const keys = [...this.data.rows.keys()];
    let i = 0;
    const req = { result: null, onsuccess: null };
    const step = () => {
      this.tx.pending++;
      later(() => {
        if (i < keys.length) {
          const k = keys[i++];
          req.result = {
            value: structuredClone(this.data.rows.get(k)),
            delete: () => this.data.rows.delete(k),
            continue: step,
          };
        } else {
          req.result = null;
        }
        if (req.onsuccess) req.onsuccess({ target: req });
        this.tx.done();
      });
    };
    step();
    return req;
  }
  createIndex(name, field) {
    this.data.indexes.set(name, field);
  }
}

class Transaction {
  constructor(db, names) {
    this.db = db;
    this.names = [].concat(names);
    this.pending = 0;
    this.oncomplete = null;
    this.onerror = null;
    this.onabort = null;
    this.error = null;
    // a transaction with no request completes too
    this.pending++;
    later(() => this.done());
  }
  objectStore(name) {
    if (!this.names.includes(name)) throw new Error("not in the transaction: " + name);
    return new Store(this, this.db.stores.get(name));
  }
  done() {
    if (--this.pending === 0) later(() => this.oncomplete && this.oncomplete());
  }
}

class Database {
  constructor() {
    this.stores = new Map();
    this.version = 0;
  }
  createObjectStore(name, { keyPath }) {
    const data = { keyPath, rows: new Map(), indexes: new Map() };
    this.stores.set(name, data);
    return new Store({ pending: 0, done() {} }, data);
  }
  transaction(names) {
    return new Transaction(this, names);
  }
}

export const indexedDB = {
  open(name, version) {
    const req = { result: null, onupgradeneeded: null, onsuccess: null, onerror: null, onblocked: null };
    later(() => {
      let db = dbs.get(name);
      if (!db) {
        db = new Database();
        dbs.set(name, db);
      }
      req.result = db;
      if (db.version < version) {
        db.version = version;
        if (req.onupgradeneeded) req.onupgradeneeded();
      }
      if (req.onsuccess) req.onsuccess();
    });
    return req;
  },
};

export function install() {
  globalThis.indexedDB = indexedDB;
}

export function close() {
  dbs.clear();
}
