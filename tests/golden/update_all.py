#!/usr/bin/env python3
"""Rewrites every golden expectation: update_all.py MPA_CHECK CAPTURES_DIR SIW_DIR SIW_EXPECTED_DIR.
A regenerated expectation is reviewed (git diff), never blindly accepted."""
import os
import subprocess
import sys

mpa_check, captures, siw_dir, siw_expected = sys.argv[1:5]
golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.py")
for name in sorted(os.listdir(captures)):
    if name.endswith((".pcap", ".pcapng")):
        path = os.path.join(captures, name)
        subprocess.run([sys.executable, golden, "update", mpa_check, path, path + ".expected.json"], check=True)
os.makedirs(siw_expected, exist_ok=True)
if os.path.isdir(siw_dir):
    for name in sorted(os.listdir(siw_dir)):
        if name.endswith((".pcap", ".pcapng")):
            subprocess.run([sys.executable, golden, "update", mpa_check, os.path.join(siw_dir, name),
                            os.path.join(siw_expected, name + ".expected.json")], check=True)
