package io.argus.pipeline.safety;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted on a test's directory: a disk that fills up for real (the kernel's ENOSPC), without filling
 * the machine's. Mounting needs root (or CAP_SYS_ADMIN): elsewhere the test is skipped with the reason.
 */
final class Tmpfs implements AutoCloseable {
    final Path dir;

    private Tmpfs(Path dir) {
        this.dir = dir;
    }

    static Tmpfs mount(Path dir, String size) throws Exception {
        Files.createDirectories(dir);
        String why = run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
        assumeTrue(why == null, "cannot mount a tmpfs (needs root or CAP_SYS_ADMIN): " + why);
        return new Tmpfs(dir);
    }

    /**
     * Fills the file system with {@code filler}; returns its size. Ends on the first "No space left on device", so
     * afterwards no data block is free (inodes are: a full disk as a data dir meets it).
     */
    long fill(Path filler) throws IOException {
        byte[] chunk = new byte[4096];
        long n = 0;
        try (OutputStream out = Files.newOutputStream(filler)) {
            for (;;) {
                out.write(chunk);
                out.flush();
                n += chunk.length;
            }
        } catch (IOException e) {
            if (e.getMessage() == null || !e.getMessage().contains("No space left on device")) throw e;
        }
        return n;
    }

    @Override
    public void close() throws Exception {
        run("umount", dir.toString());
    }

    /** Null when the command succeeded, else what it said. */
    private static String run(String... command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.getMessage();
        }
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return String.join(" ", command) + ": timed out";
        }
        return p.exitValue() == 0 ? null : String.join(" ", command) + ": exit " + p.exitValue() + ": " + out;
    }
}
