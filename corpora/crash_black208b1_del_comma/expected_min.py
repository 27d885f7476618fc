del (),
