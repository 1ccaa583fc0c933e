"""C programs for the speed-of-light baseline (runner side: `launcher`; sources: `*.c`)."""
