/* What the launcher of a `damka gen` rank (mpirun, srun, mpiexec) tells it before MPI starts,
 * and the rank's end when its launcher is gone.
 *
 * A rank of a job whose launcher was killed (SIGKILL of mpirun, a node daemon lost) would go on
 * computing, holding the directory's lock (gen/run/dirlock.h) and its memory, until its MPI library
 * notices, which some never do while no message is sent. Its parent is the launcher's process
 * on its node (mpirun, orted, prted, hydra's proxy, slurmstepd): once the parent has changed,
 * the job is gone and the rank ends at once. A process started without a launcher (one rank,
 * `damka gen` run by hand, perhaps under nohup) is not watched: its parent's end is not its
 * own. */
#ifndef DK_CLI_LAUNCHER_H
#define DK_CLI_LAUNCHER_H

/* The rank a launcher gave this process, from its environment (Open MPI, PMIx, MPICH's PMI,
 * SLURM's srun); -1 without one. Thread-safe (reads the environment only). */
int cli_launcher_rank(void);

/* On rank `rank` other than 0 (-1: not known): stderr to /dev/null (rank 0 speaks for the job,
 * and every rank finds the same usage errors), the stderr the rank started with kept for the
 * few lines that must reach the user from whichever rank (cli_rank_say). Does nothing on rank
 * 0, or once done. Returns 0, or -1 if stderr could not be redirected. Not thread-safe: call
 * from the main thread before other threads print. */
int cli_rank_quiet(int rank);

/* Writes `line` (with its newline) to the stderr this process started with. Async-signal-safe,
 * thread-safe (one write). */
void cli_rank_say(const char *line);

/* If this process was started by a launcher: a thread of its own looks at its parent every
 * 100 ms, and once the parent is another process (the launcher died) says so in one line
 * (cli_rank_say) and ends the process with exit status 1, as a SIGKILL would (what a killed run
 * leaves is what the next run resumes from). The thread calls no MPI and allocates nothing. Returns 0
 * (watching, or nothing to watch), or -1 if the thread could not be started (the rank then
 * runs unwatched). Call once, before MPI_Init, from the main thread. */
int cli_watch_launcher(void);

#endif
