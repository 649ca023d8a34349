"""The package's PEP 517 build backend: setuptools' own, run on a copy of
the project.

setuptools writes build/ and src/*.egg-info/ next to the sources it builds,
and pip builds a local directory where it is, so `pip install
./clients/python` would leave both in the repository. Each hook here copies
the project to a temporary directory, runs setuptools' hook there and
removes the copy; what it returns (the wheel, the sdist, the metadata) goes
to the directory pip names, as with setuptools itself. There is no editable
hook: an editable install must point into the tree, which a copy cannot do
(put src/ on PYTHONPATH instead).
"""

import contextlib
import os
import shutil
import tempfile

from setuptools import build_meta

_LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".pytest_cache")


@contextlib.contextmanager
def _in_a_copy():
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="ptc_sidecar-build-") as scratch:
        copy = os.path.join(scratch, "project")
        shutil.copytree(here, copy, ignore=_LEFTOVERS)
        os.chdir(copy)
        try:
            yield
        finally:
            os.chdir(here)


def get_requires_for_build_wheel(config_settings=None):
    with _in_a_copy():
        return build_meta.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    with _in_a_copy():
        return build_meta.get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    metadata_directory = os.path.abspath(metadata_directory)
    with _in_a_copy():
        return build_meta.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_directory = os.path.abspath(wheel_directory)
    if metadata_directory is not None:
        metadata_directory = os.path.abspath(metadata_directory)
    with _in_a_copy():
        return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    sdist_directory = os.path.abspath(sdist_directory)
    with _in_a_copy():
        return build_meta.build_sdist(sdist_directory, config_settings)
