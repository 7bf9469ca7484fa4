"""Results on disk: ParaView series and CSV histories, the run recorder, the output folder (floor 6)."""
