package io.argus.pipeline.cli;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigLoader;
import io.argus.pipeline.config.LoopbackHost;
import io.argus.pipeline.http.AccessToken;
import io.argus.pipeline.http.DashboardAddress;
import io.argus.pipeline.http.TokenFile;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code argus token show|rotate}: the HTTP access token of a config (docs/pipeline.md, "Access"). The URL with the
 * token is printed once when {@code argus run} generates it; these commands find it again, or replace it.
 */
@Command(name = "token", mixinStandardHelpOptions = true,
        description = {"Show or rotate the HTTP access token.", "The token guards the API, /ws and the dashboard's data when the server listens beyond loopback."},
        subcommands = {TokenCommand.Show.class, TokenCommand.Rotate.class})
final class TokenCommand {
    /** {@code --config}, read as {@code argus run} reads it (with ARGUS_* environment overrides). */
    static class ConfigOption {
        @Option(names = {"-c", "--config"}, description = "YAML config (default: $ARGUS_CONFIG or config/argus.yaml of the Argus home)")
        Path config;

        ArgusConfig load() throws Exception {
            return ConfigLoader.loadBlocking(ProjectPaths.config(config), System.getenv(), 60);
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = {"Print the access token and the dashboard link with it.", "Generates the token file if the server has not yet."})
    static final class Show implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        ConfigOption options;

        @Override
        public Integer call() throws Exception {
            ArgusConfig config = options.load();
            AccessToken access = AccessToken.resolve(config.http(), config.cacheDir());
            DashboardAddress dashboard = DashboardAddress.of(config.http().host(), config.http().port(), access);
            if (access.open()) {
                System.out.println("argus: no token: http.host " + config.http().host()
                        + " is a loopback address and http.token is empty, so the server is open to this machine only");
                System.out.println("dashboard: " + dashboard.url());
                return 0;
            }
            System.out.println("token: " + access.token());
            System.out.println("dashboard: " + dashboard.urlWithToken());
            System.out.println(access.kind() == AccessToken.Kind.CONFIGURED
                    ? "source: http.token of " + config.file()
                    : "source: " + access.file() + (access.generatedNow() ? " (generated now; argus run will use it)" : ""));
            return 0;
        }
    }

    @Command(name = "rotate", mixinStandardHelpOptions = true,
            description = {"Replace the generated access token.", "A running server switches to the new one within seconds."})
    static final class Rotate implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        ConfigOption options;

        @Override
        public Integer call() throws Exception {
            ArgusConfig config = options.load();
            if (config.http().token() != null) {
                throw new IllegalArgumentException("the token is set by http.token in " + config.file()
                        + " (or ARGUS_HTTP_TOKEN): edit the config to change it, then restart");
            }
            Path file = TokenFile.in(config.cacheDir());
            String token = TokenFile.generate();
            TokenFile.write(file, token);
            AccessToken access = new AccessToken(AccessToken.Kind.FILE, token, file, true);
            System.out.println("token: " + token);
            System.out.println("dashboard: " + DashboardAddress.of(config.http().host(), config.http().port(), access).urlWithToken());
            System.out.println("source: " + file + " (a running server switches to it within a few seconds;"
                    + " browsers and clients with the old token get 401 until they use the new one)");
            if (LoopbackHost.is(config.http().host())) {
                System.out.println("note: http.host " + config.http().host()
                        + " is a loopback address, so the server stays open and uses no token until it listens elsewhere");
            }
            return 0;
        }
    }
}
