#!/bin/sh
# placeto-import-@KIND@: runs the importer installed beside the data
# (PREFIX/share/placeto/import/@KIND@_graph.py, found from this file, as placeto
# finds its data). The interpreter: $PLACETO_PYTHON when set, else the python3
# on PATH when it can import @MODULE@ (an activated virtual environment), else
# /usr/bin/python3. Made by `make install` from graphs/import/wrapper.sh.
script="$(dirname "$(readlink -f "$0")")/../share/placeto/import/@KIND@_graph.py"
if [ -n "${PLACETO_PYTHON:-}" ]; then
    py=$PLACETO_PYTHON
    if ! command -v "$py" > /dev/null 2>&1; then
        echo "placeto-import-@KIND@: PLACETO_PYTHON=$py: no such program (name a Python interpreter, e.g. ~/venv/bin/python)" >&2
        exit 1
    fi
elif command -v python3 > /dev/null 2>&1 &&
     python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("@MODULE@") is None)' > /dev/null 2>&1; then
    py=python3
else
    py=/usr/bin/python3
fi
exec "$py" "$script" "$@"
