#!/usr/bin/env python3
"""The bundle hash of stimuli/hash.c written independently from its
documented format (the golden values of tests/test_experiment_export.c):
SHA-256 over every regular file and symbolic link in sorted relative-path
order. File: path NUL, size (8 bytes big-endian), bytes. Link: path NUL,
8 bytes 0xFF, target NUL, then the size and bytes of what it resolves to
when that is a regular file, else 8 bytes 0xFF.
Usage: bundle_hash.py DIR"""
import os, sys, hashlib, struct
def bundle_hash(root):
    ents=[]
    for d,dirs,files in os.walk(root):
        for n in files+[x for x in dirs if os.path.islink(os.path.join(d,x))]:
            p=os.path.join(d,n); rel=os.path.relpath(p,root)
            if os.path.islink(p) or os.path.isfile(p): ents.append(rel)
    h=hashlib.sha256()
    for rel in sorted(set(ents), key=lambda s: s.encode()):
        p=os.path.join(root,rel); h.update(rel.encode()+b'\0')
        if os.path.islink(p):
            h.update(b'\xff'*8); h.update(os.readlink(p).encode()+b'\0')
            if os.path.isfile(p):
                b=open(p,'rb').read(); h.update(struct.pack('>Q',len(b))+b)
            else: h.update(b'\xff'*8)
        else:
            b=open(p,'rb').read(); h.update(struct.pack('>Q',len(b))+b)
    return h.hexdigest()
print(bundle_hash(sys.argv[1]))
