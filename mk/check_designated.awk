# mk/check_designated.awk: the scanner of check_designated.sh (see there).
# For each descriptor definition in the files read, walks its initializer
# (strings, character constants, comments and parentheses skipped) and
# prints one line "FILE:LINE: NAME: K field(s) given by position ..." for a
# descriptor with any; exits 1 when there is one. POSIX awk (mawk).

# Counts a positional field of the descriptor being walked (the first one's
# line and place kept for the report).
function fail(msg) { if (!npos) { first = line; firstmsg = msg }; npos++ }
# Skips blanks and comments from text[pos]; counts the lines passed.
function skip(   c) {
    for (;;) {
        c = substr(text, pos, 1)
        if (c == "\n") { line++; pos++ }
        else if (c == " " || c == "\t" || c == "\r") pos++
        else if (substr(text, pos, 2) == "/*") {
            pos += 2
            while (pos <= n && substr(text, pos, 2) != "*/") { if (substr(text, pos, 1) == "\n") line++; pos++ }
            pos += 2
        } else if (substr(text, pos, 2) == "//") {
            while (pos <= n && substr(text, pos, 1) != "\n") pos++
        } else return
    }
}
# Walks the brace opened at text[pos] (a "{"): mode "named" (each element
# starts with a designator), "rows" (each element is a brace in mode
# "named") or "free". subt holds the fields whose braces are named too
# (AgentKind's sub-tables, a tour stage's .pub); what names the place for the report.
function walk(mode, what,   c, q, field, depth) {
    pos++
    for (;;) {
        skip()
        c = substr(text, pos, 1)
        if (c == "}") { pos++; return }
        if (pos > n) return
        field = ""
        if (mode == "named") {
            if (c != "." && c != "[") fail(what)
            else if (c == ".") {
                q = substr(text, pos + 1)
                match(q, /^[A-Za-z_][A-Za-z_0-9]*/)
                field = substr(q, 1, RLENGTH)
            }
        } else if (mode == "rows" && substr(text, pos) ~ /^\{ *0 *\}/) {
            pos = index(substr(text, pos), "}") + pos   # the {0} that ends a table
            skip()
            if (substr(text, pos, 1) == ",") pos++
            continue
        } else if (mode == "rows" && c != "{" && c !~ /[A-Z]/)
            fail(what " a row not in braces")
        # the element: up to the "," or "}" of this level
        for (;;) {
            skip()
            c = substr(text, pos, 1)
            if (pos > n || c == "}") break
            if (c == ",") { pos++; break }
            if (c == "\"" || c == "\047") {
                q = c; pos++
                while (pos <= n && substr(text, pos, 1) != q) { if (substr(text, pos, 1) == "\\") pos++; pos++ }
                pos++
            } else if (c == "{") {
                if (mode == "rows") walk("named", what " a row")
                else if (mode == "named" && (field in subt)) walk("named", what " ." field)
                else walk("free", what)
            } else if (c == "(") {
                depth = 1; pos++
                while (pos <= n && depth > 0) {
                    c = substr(text, pos, 1)
                    if (c == "(") depth++
                    else if (c == ")") depth--
                    else if (c == "\n") line++
                    pos++
                }
            } else pos++
        }
    }
}
FNR == 1 && NR > 1 { scan() }
{ buf[FNR] = $0; nbuf = FNR; file = FILENAME }
END { scan(); exit bad }
function scan(   i, k, name, mode, built) {
    built = 0
    cur = file
    for (i = 1; i <= nbuf; i++) {
        if (buf[i] !~ /^(static )?const (AgentKind|AgentActorOps|PolicyFileKind|CliCmd|Binding|TourStage|AgentOpt|CliOpt) [A-Za-z_0-9]+(\[[A-Za-z_0-9]*\])? = \{/) continue
        if (!built) { text = ""; for (k = 1; k <= nbuf; k++) text = text buf[k] "\n"; n = length(text); built = 1 }
        name = buf[i]; sub(/^(static )?const /, "", name); sub(/ = \{.*/, "", name)
        mode = (buf[i] ~ /\[/) ? "rows" : "named"
        # where the "{" of line i is in text
        pos = 1
        for (k = 1; k < i; k++) pos += length(buf[k]) + 1
        pos += index(buf[i], "= {") + 1
        line = i
        npos = 0
        walk(mode, name)
        if (npos) {
            printf "%s:%d: %s: %d field(s) given by position (the first on this line%s); name each (.field = ...)\n", \
                cur, first, name, npos, firstmsg == name ? "" : ", in" substr(firstmsg, length(name) + 1)
            bad = 1
        }
    }
    nbuf = 0
}
BEGIN { subt["file"]; subt["place"]; subt["train"]; subt["pub"] }
