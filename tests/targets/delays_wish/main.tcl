# A Tk program written in Tcl (not Python: nothing inside answers the engine): three buttons whose
# reactions come at once, 150 ms later and 400 ms later, as benchmark/targets/delays_tk.
wm title . "Delays (wish)"
wm geometry . 480x240+0+0
. configure -bg "#eef1f5"
set delays {0 150 400}
foreach i {0 1 2} {
    set count($i) 0
    frame .c$i -bg "#eef1f5"
    pack .c$i -side left -padx 16 -pady 16 -anchor n
    set delay [lindex $delays $i]
    button .c$i.b -text [expr {$delay ? "Later $delay" : "Now"}] -width 9 -font {{DejaVu Sans} 12} \
        -command [list pressed $i]
    label .c$i.l -text 0 -width 6 -font {{DejaVu Sans} 20} -bg "#dde3ea"
    pack .c$i.b
    pack .c$i.l -pady 12
}
proc react {i} {
    global count
    incr count($i)
    .c$i.l configure -text $count($i)
}
proc pressed {i} {
    global delays
    set delay [lindex $delays $i]
    if {$delay} { after $delay [list react $i] } else { react $i }
}
