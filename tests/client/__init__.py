"""Tests of the reference client and host router: crafted servers (fakes.py) and the real one."""
