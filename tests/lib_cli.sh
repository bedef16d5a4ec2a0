# Shared by the command-line test scripts (sourced; expects $tmp and $rc).

# one line: newlines shown as \n, cut to 400 characters
flat() { head -c 400 "$1" 2> /dev/null | tr -d '\r' | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g'; }

# The crash checks every run must pass: no crash, no sanitizer or valgrind
# report. Prints the reason and returns 1 when something is wrong.
crash_reason() {
    if [ "$rc" -eq 99 ]; then echo "valgrind reported an error (exit 99)"; return 1; fi
    if [ "$rc" -eq 124 ]; then echo "timed out after 20 s"; return 1; fi
    if [ "$rc" -ge 128 ]; then echo "killed by signal $((rc - 128))"; return 1; fi
    if grep -qE 'Segmentation|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|placeto: fatal:' "$tmp/err"; then
        echo "crash or sanitizer report on stderr"; return 1
    fi
    return 0
}
