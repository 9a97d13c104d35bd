package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.Permit;
import dev.bulwark.redis.testing.RedisFixture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bulkhead under an ACL user with exactly the rights docs/cluster.md lists ("TLS and ACL users"): the keys and
 * channels {@code bulwark:*}, the script commands and the commands the scripts run (Redis checks those against the
 * user too). Acquire, queue, grant, release, counts and configure all work, and the user reaches nothing else.
 */
class RedisAclUserTest {

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    @Test
    void worksUnderAUserWithOnlyTheDocumentedRights() throws Exception {
        CommandArgs<String, String> setUser = new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add("bulwark")
                .add("on").add(">secret").add("~bulwark:*").add("&bulwark:*").add("+@connection");
        for (String command : new String[] {"evalsha", "eval", "script|load", "subscribe", "time", "hmget", "hget",
                "hset", "exists", "get", "incr", "incrby", "del", "zadd", "zrem", "zscore", "zcard", "zrange",
                "zrangebyscore", "zremrangebyscore", "publish"}) {
            setUser.add("+" + command);
        }
        assertThat(redis.inspect().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), setUser))
                .isEqualTo("OK");

        RedisBulkhead holder = redis.track(RedisBulkhead.builder(client(), "acl").maxConcurrency(1).maxQueue(1)
                .build());
        RedisBulkhead other = redis.track(RedisBulkhead.builder(client(), "acl").build());
        Permit held = holder.acquire();
        CompletableFuture<Permit> waiting = other.acquireAsync();
        org.awaitility.Awaitility.await().untilAsserted(() -> assertThat(other.queuedCount()).isEqualTo(1));
        held.close();
        waiting.get(10, TimeUnit.SECONDS).close();
        other.changeMaxConcurrency(2);
        assertThat(holder.executingCount()).isZero();
        assertThat(holder.maxConcurrency()).isEqualTo(2);
        try (var plain = client().connect()) {
            assertThatThrownBy(() -> plain.sync().get("elsewhere")).as("the user is confined to bulwark:*")
                    .hasMessageContaining("NOPERM");
        }
    }

    private RedisClient client() {
        RedisURI uri = RedisURI.builder(RedisURI.create(redis.server().uri()))
                .withAuthentication("bulwark", "secret").build();
        RedisClient client = RedisClient.create(uri);
        client.setOptions(RedisBulkhead.clientOptions());
        redis.track(() -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        return client;
    }
}
