# bash completion for placeto. `make install` puts it in
# PREFIX/share/bash-completion/completions/placeto; from a source tree,
# `source completions/placeto.bash`. The words come from the program being
# completed (`placeto --complete ...`, made from the tables of its --help):
# the commands, each command's options, the placement methods after
# --method and --methods (a comma-separated list), 'auto' or a file after
# --policy, a word option's values (--level, --preset: `--complete values`),
# and files elsewhere.

_placeto() {
    local cur prev prog cmd i line name arg takes=
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    prog=${COMP_WORDS[0]}
    COMPREPLY=()
    # --opt=VALUE: bash splits at '=' (COMP_WORDBREAKS)
    if [ "$cur" = "=" ]; then
        cur=
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    # the command: the first word after the program that is not an option
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [ -z "$cmd" ] || { [ "$cmd" = help ] && [ "$i" -eq $((COMP_CWORD - 1)) ]; }; then
        local words
        words=$("$prog" --complete commands 2> /dev/null)
        [ "$cmd" = help ] && words=$(printf '%s\n' "$words" | grep -v -e '^-' -e '^help$')
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        return 0
    fi
    local opts=()
    while read -r name arg; do
        [ -n "$name" ] || continue
        [ "$name" = "$prev" ] && takes=$arg
        case $name in --*) opts+=("$name") ;; esac
    done < <("$prog" --complete options "$cmd" 2> /dev/null)
    # the value of an option (an optional one, [SECONDS], only when typed)
    if [ -n "$takes" ] && [ "$takes" != "-" ] && [ "${takes#[}" = "$takes" ]; then
        local what=$prev
        [ "$cmd" = compare ] && [ "$prev" = -m ] && what=--methods
        case $what in
            --method | -m)
                mapfile -t COMPREPLY < <(compgen -W "$("$prog" --complete methods 2> /dev/null)" -- "$cur")
                return 0 ;;
            --methods)
                local head=
                case $cur in *,*) head=${cur%,*}, ;; esac
                mapfile -t COMPREPLY < <(compgen -P "$head" -W "$("$prog" --complete methods 2> /dev/null)" -- "${cur##*,}")
                compopt -o nospace 2> /dev/null
                return 0 ;;
            --policy | -p)
                mapfile -t COMPREPLY < <(compgen -W auto -- "$cur")
                ;;
            --size | --devices | -n | --groups | -g | --seed | -s | --keys)
                return 0 ;;
        esac
        # a word option (--level, -l, --preset): its row's choices, nothing else
        local words
        words=$("$prog" --complete values "$cmd" "$what" 2> /dev/null)
        if [ -n "$words" ]; then
            mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
            return 0
        fi
        compopt -o filenames 2> /dev/null
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
        return 0
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${opts[*]}" -- "$cur")
        return 0
    fi
    compopt -o filenames 2> /dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    return 0
}
complete -F _placeto placeto ./placeto
