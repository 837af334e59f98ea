// Keeps the recorder's file descriptors out of the application's reach.
//
// Programs that close every descriptor above 2 (daemons, some HPC codes, with a close() loop,
// close_range() or closefrom()) would close the rank file's descriptor under HDF5; the number
// is then reused by the application's next open, and the recorder's writes would land in the
// application's file. This library interposes close(), close_range() and closefrom(): a
// guarded descriptor is left open (close() of it fails with EBADF, as for a number that is
// not open in the application's view); every other descriptor closes as asked. The
// recorder's own threads may close guarded descriptors.
//
// A program that closes descriptors with raw system calls bypasses this; the writer thread
// then notices that the file behind the descriptor changed (RankFileWriter's
// descriptor_intact()) before writing, and stops.
#pragma once

namespace rocprof::recorder {

// Guards `fd` until unguard_descriptor(); a small fixed number of slots (lock-free).
void guard_descriptor(int fd) noexcept;
void unguard_descriptor(int fd) noexcept;
bool descriptor_guarded(int fd) noexcept;

}  // namespace rocprof::recorder
