# check_netfile.awk - structural check of an ibsim net file (as gen-fattree
# writes it: one "Switch N" / "Hca N" header per record, then one
# '[port] "remote"[rport]' line per cabled port).  Prints
#   switches S cas C links L
# and exits 0, or prints every problem found and exits 1.  Checks: the first
# record is a CA (ibsim's SM port is the first port in the file), names are
# unique, ports are in 1..N and listed once, every remote node exists and
# lists the same link from its side.
function problem(msg) {
    if (++bad <= 20)
        print (FNR ? FILENAME ":" FNR ": " : "") msg
}

/^(Switch|Hca|Ca)[ \t]/ {
    if (!match($0, /"[^"]*"/)) {
        problem("header without a quoted name")
        next
    }
    node = substr($0, RSTART + 1, RLENGTH - 2)
    if (node in nports)
        problem("node " node " defined twice")
    nports[node] = $2 + 0
    isswitch[node] = ($1 == "Switch")
    if (++nodes == 1 && isswitch[node])
        problem("first record is a switch; ibsim would put the SM on its port 0")
    if (isswitch[node])
        switches++
    else
        cas++
    next
}

/^\[/ {
    if (node == "") {
        problem("port line outside a record")
        next
    }
    if (!match($0, /^\[[0-9]+\][ \t]*"[^"]+"\[[0-9]+\][ \t]*$/)) {
        problem("bad port line: " $0)
        next
    }
    port = substr($0, 2, index($0, "]") - 2) + 0
    match($0, /"[^"]+"/)
    rnode = substr($0, RSTART + 1, RLENGTH - 2)
    rport = substr($0, RSTART + RLENGTH + 1) + 0
    if (port < 1 || port > nports[node])
        problem(node " has no port " port)
    if ((node, port) in remote)
        problem(node "[" port "] listed twice")
    remote[node, port] = rnode SUBSEP rport
    ends++
    next
}

/^[ \t]*$/ || /^#/ { next }

{ problem("unexpected line: " $0) }

END {
    for (key in remote) {
        split(key, a, SUBSEP)
        split(remote[key], b, SUBSEP)
        if (!(b[1] in nports))
            problem(a[1] "[" a[2] "] goes to unknown node " b[1])
        else if (b[2] < 1 || b[2] > nports[b[1]])
            problem(a[1] "[" a[2] "] goes to missing port " b[1] "[" b[2] "]")
        else if (!((b[1], b[2]) in remote))
            problem(a[1] "[" a[2] "] -> " b[1] "[" b[2] "] not listed at the far end")
        else if (remote[b[1], b[2]] != a[1] SUBSEP a[2])
            problem(a[1] "[" a[2] "] -> " b[1] "[" b[2] "] but the far end says otherwise")
        else if (a[1] == b[1] && a[2] == b[2])
            problem(a[1] "[" a[2] "] is cabled to itself")
    }
    if (ends % 2)
        problem("odd number of link ends")
    if (bad > 20)
        print "... " bad " problems in all"
    print "switches " switches + 0 " cas " cas + 0 " links " int(ends / 2)
    exit bad > 0
}
