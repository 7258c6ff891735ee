package io.argus.pipeline.cli;

import io.argus.pipeline.config.ClusterSecret;
import io.argus.pipeline.config.SecretFile;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus cluster secret [--out FILE]}: a new cluster secret (docs/cluster.md). Every node of a cluster needs the
 * same one; a node clustered beyond loopback refuses to start without it.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = {"Tools for a cluster of nodes.", "See docs/cluster.md."},
        subcommands = {ClusterCommand.Secret.class})
final class ClusterCommand {

    @Command(name = "secret", mixinStandardHelpOptions = true,
            description = {"Make a new random cluster secret.",
                    "Printed, or written to --out (mode 0600, never over an existing file). Copy it to every node and set "
                            + "cluster.secretFile (or cluster.secret, or ARGUS_CLUSTER_SECRET) there."})
    static final class Secret implements Callable<Integer> {
        @Option(names = {"-o", "--out"}, description = "write it to this new file (mode 0600) instead of printing it")
        Path out;

        @Override
        public Integer call() throws Exception {
            String secret = ClusterSecret.generate();
            if (out == null) {
                System.out.println(secret);
                return 0;
            }
            try {
                SecretFile.create(out, secret);
            } catch (FileAlreadyExistsException e) {
                throw new IllegalArgumentException(out + " exists: not replaced (a running cluster would lose its secret;"
                        + " delete it first to make a new one)");
            }
            System.out.println("cluster secret written to " + out.toAbsolutePath() + " (mode 0600): copy it to every node "
                    + "(keeping the mode) and set cluster.secretFile to it there");
            return 0;
        }
    }
}
