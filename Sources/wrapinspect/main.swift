import WrapInspectCommands

WrapInspectProgram.main()
