package dev.bulwark.cli.internal.migrate;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Turns the {@code resilience4j.*} bulkhead, thread-pool bulkhead, retry and time limiter settings of a Spring Boot
 * configuration file into the equivalent {@code bulwark.*} settings, with a {@link Note} for each setting it could
 * not carry over exactly.
 *
 * <p>Each instance's settings are resolved as Resilience4j resolves them ({@code CommonXxxConfigurationProperties}):
 * its own values, over those of its {@code baseConfig} (itself resolved the same way), or, without one, over
 * {@code configs.default} (except for an instance or config named {@code default}), over Resilience4j's built-in
 * defaults. Resilience4j's effective settings of a name not declared (those of {@code configs.default}, or the
 * built-in ones) become {@code bulwark.defaults}, written out in full since Bulwark's own defaults differ; each
 * instance then sets only what differs from them. A value Resilience4j itself would refuse at startup (a negative
 * wait, a {@code baseConfig} naming no config) fails the migration with a {@link BadConfigException}.
 * Not thread-safe: one instance per migration.
 */
public final class Resilience4jMigration {

    /** Bulwark's bulkhead default when no bulwark.defaults.bulkhead is written: its core builder's. */
    private static final Map<String, Object> BULWARK_BULKHEAD = Map.of("max-concurrency", "10", "max-queue", "0");
    private static final Map<String, Object> BULWARK_RETRY = Map.of("max-retries", "3");
    private static final Set<String> WAIT_KEYS = Set.of("delay", "backoff-initial", "backoff-max");
    private static final String UNBOUNDED_QUEUE = String.valueOf(Integer.MAX_VALUE);

    /**
     * The outcome of a migration.
     *
     * @param config the {@code bulwark.*} settings
     * @param notes what could not be carried over exactly, in input-line order
     */
    public record Result(BulwarkConfig config, List<Note> notes) {
    }

    private final String file;
    private final Set<Note> notes = new LinkedHashSet<>();
    private final BulwarkConfig config = new BulwarkConfig();

    private Resilience4jMigration(String file) {
        this.file = file;
    }

    /**
     * Migrates the documents of a configuration file.
     *
     * @param file the file's name, for messages
     * @param documents its documents, as {@link ConfigFileReader} read them
     * @return the {@code bulwark.*} settings and the notes
     * @throws BadConfigException when a value is one Resilience4j would refuse, naming the line
     */
    public static Result migrate(String file, List<List<FlatEntry>> documents) {
        Resilience4jSettings settings = Resilience4jSettings.parse(documents);
        Resilience4jMigration migration = new Resilience4jMigration(file);
        migration.notes.addAll(settings.notes);
        migration.run(settings);
        List<Note> sorted = new ArrayList<>(migration.notes);
        sorted.sort(Comparator.comparingInt(Note::line));
        return new Result(migration.config, List.copyOf(sorted));
    }

    private void run(Resilience4jSettings settings) {
        for (Section section : settings.sections.values()) {
            section.configs.values().forEach(props -> noteUnmapped(section.kind, props));
            section.instances.values().forEach(props -> noteUnmapped(section.kind, props));
        }
        Section bulkheads = settings.sections.get(Kind.BULKHEAD);
        if (bulkheads != null) {
            Mapped defaults = bulkhead(defaultChain(bulkheads));
            config.defaults.put("bulkhead", defaults.values);
            defaults.emitNotes(defaults.values.keySet());
            for (Props instance : bulkheads.instances.values()) {
                Mapped mapped = bulkhead(chain(bulkheads, instance, instance.name, new HashSet<>()));
                emit("bulkheads", instance.name, mapped, differing(mapped.values, defaults.values));
            }
        }
        Section threadPools = settings.sections.get(Kind.THREAD_POOL_BULKHEAD);
        if (threadPools != null) {
            threadPoolBulkheads(threadPools, bulkheads);
        }
        Section retries = settings.sections.get(Kind.RETRY);
        if (retries != null) {
            retries(retries);
        }
        Section timeLimiters = settings.sections.get(Kind.TIME_LIMITER);
        if (timeLimiters != null) {
            Mapped defaults = timeout(defaultChain(timeLimiters), defaultKey(timeLimiters), defaultLine(timeLimiters));
            config.defaults.put("timeout", defaults.values);
            defaults.emitNotes(defaults.values.keySet());
            for (Props instance : timeLimiters.instances.values()) {
                Mapped mapped = timeout(chain(timeLimiters, instance, instance.name, new HashSet<>()), instance.key,
                        instance.line);
                emit("timeouts", instance.name, mapped, differing(mapped.values, defaults.values));
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- inheritance

    /** The props an instance or config is made of, base first, as Resilience4j's createXxxConfig resolves them. */
    private List<Props> chain(Section section, Props props, String name, Set<String> visiting) {
        List<Props> chain;
        String base = props.baseConfig();
        if (!base.isEmpty()) {
            Props baseProps = section.configs.get(base);
            Setting baseSetting = props.get("baseconfig");
            if (baseProps == null) {
                throw new BadConfigException(file, baseSetting.line, baseSetting.key + ": no config named '" + base
                        + "' under resilience4j." + section.kind.section + ".configs (Resilience4j refuses to start: "
                        + "ConfigurationNotFoundException)");
            }
            if (!visiting.add(base)) {
                throw new BadConfigException(file, baseSetting.line, baseSetting.key + ": the configs' baseConfig "
                        + "settings form a cycle through '" + base + "'");
            }
            chain = chain(section, baseProps, base, visiting);
        } else if (!name.equals("default") && section.configs.containsKey("default")) {
            visiting.add("default");
            chain = chain(section, section.configs.get("default"), "default", visiting);
        } else {
            chain = new ArrayList<>();
        }
        chain.add(props);
        return chain;
    }

    /** What Resilience4j makes a name that is not declared of: {@code configs.default}, or nothing but defaults. */
    private List<Props> defaultChain(Section section) {
        Props defaults = section.configs.get("default");
        return defaults == null ? new ArrayList<>() : chain(section, defaults, "default", new HashSet<>());
    }

    private static String defaultKey(Section section) {
        Props defaults = section.configs.get("default");
        return defaults != null ? defaults.key : "resilience4j." + section.kind.section;
    }

    private static int defaultLine(Section section) {
        Props defaults = section.configs.get("default");
        return defaults != null ? defaults.line : section.line;
    }

    /** The last setting of a property along the chain, placeholders aside (they were noted and are skipped). */
    private static Setting last(List<Props> chain, String property) {
        Setting found = null;
        for (Props props : chain) {
            Setting setting = props.get(property);
            if (setting != null && !setting.isPlaceholder()) {
                found = setting;
            }
        }
        return found;
    }

    // ---------------------------------------------------------------------------------------------- bulkheads

    private Mapped bulkhead(List<Props> chain) {
        int maxConcurrentCalls = 25;
        Duration maxWait = Duration.ZERO;
        Setting waitSetting = null;
        Setting calls = last(chain, "maxconcurrentcalls");
        if (calls != null) {
            maxConcurrentCalls = SpringValues.integer(file, calls);
            if (maxConcurrentCalls < 1) {
                throw atLeast(calls, "1");
            }
        }
        Setting wait = last(chain, "maxwaitduration");
        if (wait != null) {
            maxWait = nonNegative(wait);
            waitSetting = wait;
        }
        Mapped mapped = new Mapped();
        mapped.values.put("max-concurrency", String.valueOf(maxConcurrentCalls));
        if (maxWait.isZero()) {
            mapped.values.put("max-queue", "0");
        } else {
            mapped.values.put("max-queue", UNBOUNDED_QUEUE);
            mapped.values.put("max-wait", SpringValues.format(maxWait));
            mapped.notes.put("max-queue", new Note(waitSetting.line, waitSetting.key, "Resilience4j lets any "
                    + "number of callers wait up to " + SpringValues.format(maxWait) + "; max-queue "
                    + UNBOUNDED_QUEUE + " keeps that, but a bound of your choosing is safer"));
        }
        return mapped;
    }

    private void threadPoolBulkheads(Section section, Section semaphores) {
        Map<String, Object> reference = config.defaults.getOrDefault("bulkhead", BULWARK_BULKHEAD);
        Props defaults = section.configs.get("default");
        if (defaults != null) {
            notes.add(new Note(defaults.line, defaults.key, "Bulwark has one set of bulkhead defaults ("
                    + (config.defaults.containsKey("bulkhead") ? "from resilience4j.bulkhead" : "its own") + "): a "
                    + "thread-pool bulkhead that is not declared by name gets those, not these"));
        }
        for (Props instance : section.instances.values()) {
            List<Props> chain = chain(section, instance, instance.name, new HashSet<>());
            Integer maxThreads = null;
            Integer coreThreads = null;
            int queue = 100;
            Setting max = last(chain, "maxthreadpoolsize");
            if (max != null && SpringValues.integer(file, max) > 0) {
                maxThreads = SpringValues.integer(file, max);
            }
            Setting core = last(chain, "corethreadpoolsize");
            if (core != null && SpringValues.integer(file, core) > 0) {
                coreThreads = SpringValues.integer(file, core);
            }
            Setting capacity = last(chain, "queuecapacity");
            if (capacity != null && SpringValues.integer(file, capacity) >= 0) {
                queue = SpringValues.integer(file, capacity);
            }
            if (maxThreads != null && coreThreads != null && maxThreads < coreThreads) {
                throw new BadConfigException(file, max.line, max.key + ": maxThreadPoolSize " + maxThreads
                        + " is less than coreThreadPoolSize " + coreThreads + " (Resilience4j refuses to start)");
            }
            String name = instance.name;
            if (semaphores != null && semaphores.instances.containsKey(name)) {
                name = name + "-thread-pool";
                notes.add(new Note(instance.line, instance.key, "also the name of a resilience4j.bulkhead instance, "
                        + "and Bulwark has one bulkhead per name: migrated as '" + name + "'; name that in the "
                        + "@Bulkhead that had type = THREADPOOL"));
            }
            notes.add(new Note(instance.line, instance.key, "Bulwark has no thread pool: the bulkhead lets "
                    + "maxThreadPoolSize calls run at once and queueCapacity wait, on the callers' threads "
                    + "(a CompletableFuture method must start its own asynchronous work)"));
            Mapped mapped = new Mapped();
            if (maxThreads != null) {
                mapped.values.put("max-concurrency", String.valueOf(maxThreads));
            } else {
                notes.add(new Note(instance.line, instance.key, "maxThreadPoolSize is not set: Resilience4j uses "
                        + "the number of processors of the machine it runs on, which the migration cannot know; "
                        + "set max-concurrency by hand (else it is " + reference.get("max-concurrency") + ")"));
            }
            mapped.values.put("max-queue", String.valueOf(queue));
            if (queue > 0 && reference.containsKey("max-wait")) {
                notes.add(new Note(instance.line, instance.key, "inherits max-wait " + reference.get("max-wait")
                        + " from bulwark.defaults.bulkhead, while Resilience4j's thread-pool queue has no wait "
                        + "bound"));
            }
            emit("bulkheads", name, mapped, differing(mapped.values, reference));
        }
    }

    // ---------------------------------------------------------------------------------------------- retries

    private void retries(Section section) {
        Mapped defaults = retry(defaultChain(section), defaultKey(section), defaultLine(section));
        defaults.values.remove("wait-irrelevant");
        config.defaults.put("retry", defaults.values);
        defaults.emitNotes(defaults.values.keySet());
        for (Props instance : section.instances.values()) {
            Mapped mapped = retry(chain(section, instance, instance.name, new HashSet<>()), instance.key,
                    instance.line);
            Set<String> emitted = new LinkedHashSet<>();
            if (!Objects.equals(mapped.values.get("max-retries"), defaults.values.get("max-retries"))) {
                emitted.add("max-retries");
            }
            if (mapped.values.remove("wait-irrelevant") == null) {
                Map<String, Object> own = subset(mapped.values, WAIT_KEYS);
                Map<String, Object> inherited = subset(defaults.values, WAIT_KEYS);
                if (own.isEmpty() && !inherited.isEmpty()) {
                    notes.add(new Note(instance.line, instance.key, "waits no time between attempts, which "
                            + "Bulwark cannot declare for one retry while bulwark.defaults.retry has a wait: it "
                            + "inherits " + inherited));
                } else if (!own.equals(inherited)) {
                    emitted.addAll(own.keySet());
                }
            }
            Object jitter = mapped.values.getOrDefault("jitter", "0");
            if (!jitter.equals(defaults.values.getOrDefault("jitter", "0"))) {
                mapped.values.put("jitter", jitter);
                emitted.add("jitter");
            }
            Object retryOn = mapped.values.get("retry-on");
            Object inheritedRetryOn = defaults.values.get("retry-on");
            if (!Objects.equals(retryOn, inheritedRetryOn)) {
                if (retryOn == null) {
                    mapped.values.put("retry-on", List.of("java.lang.Exception"));
                    notes.add(new Note(instance.line, instance.key, "retries every exception while "
                            + "bulwark.defaults.retry lists some: migrated as retry-on java.lang.Exception"));
                }
                emitted.add("retry-on");
            }
            emit("retries", instance.name, mapped, emitted);
        }
    }

    private Mapped retry(List<Props> chain, String key, int line) {
        int attempts = 3;
        RetryWait wait = RetryWait.DEFAULT;
        Setting waitOrigin = null;
        Boolean exponential = null;
        Boolean randomized = null;
        Double multiplier = null;
        Duration exponentialMax = null;
        List<String> retryExceptions = List.of();
        for (Props props : chain) {
            Setting setting = props.get("enableexponentialbackoff");
            exponential = usable(setting) ? (Boolean) SpringValues.bool(file, setting) : exponential;
            setting = props.get("enablerandomizedwait");
            randomized = usable(setting) ? (Boolean) SpringValues.bool(file, setting) : randomized;
            setting = props.get("exponentialbackoffmultiplier");
            multiplier = usable(setting) ? (Double) SpringValues.number(file, setting) : multiplier;
            setting = props.get("exponentialmaxwaitduration");
            exponentialMax = usable(setting) ? nonNegative(setting) : exponentialMax;
            setting = props.get("maxattempts");
            if (usable(setting)) {
                attempts = SpringValues.integer(file, setting);
                if (attempts < 1) {
                    throw atLeast(setting, "1");
                }
            }
            setting = props.get("waitduration");
            if (usable(setting)) {
                // As CommonRetryConfigurationProperties does: the wait is (re)made only where waitDuration is set,
                // with the flags inherited so far and this level's own randomizedWaitFactor.
                long millis = nonNegative(setting).toMillis();
                Setting factorSetting = props.get("randomizedwaitfactor");
                Double factor = usable(factorSetting) ? (Double) SpringValues.number(file, factorSetting) : null;
                boolean exp = Boolean.TRUE.equals(exponential);
                boolean random = Boolean.TRUE.equals(randomized);
                if ((exp || random) && millis < 1) {
                    throw new BadConfigException(file, setting.line, setting.key + ": an exponential or randomized "
                            + "wait must be at least 1ms (Resilience4j refuses to start)");
                }
                if (exp && random) {
                    double m = multiplier != null ? multiplier : RetryWait.DEFAULT_MULTIPLIER;
                    double f = multiplier != null && factor != null ? factor : RetryWait.DEFAULT_RANDOMIZATION_FACTOR;
                    long max = exponentialMax != null && factor != null && multiplier != null
                            ? exponentialMax.toMillis() : -1;
                    wait = new RetryWait(millis, m, checkedFactor(f, factorSetting), max, false);
                } else if (exp) {
                    double m = multiplier != null ? multiplier : RetryWait.DEFAULT_MULTIPLIER;
                    long max = exponentialMax != null && multiplier != null ? exponentialMax.toMillis() : -1;
                    wait = new RetryWait(millis, m, 0, max, false);
                } else if (random) {
                    double f = factor != null ? factor : RetryWait.DEFAULT_RANDOMIZATION_FACTOR;
                    wait = new RetryWait(millis, 1, checkedFactor(f, factorSetting), -1, false);
                } else {
                    wait = new RetryWait(millis, 1, 0, -1, false);
                }
                waitOrigin = setting;
            }
            setting = props.get("intervalbifunction");
            if (usable(setting)) {
                wait = new RetryWait(0, 1, 0, -1, true);
                waitOrigin = setting;
            }
            setting = props.get("retryexceptions");
            retryExceptions = usable(setting) ? List.copyOf(setting.values) : retryExceptions;
        }
        Mapped mapped = new Mapped();
        int retries = attempts - 1;
        mapped.values.put("max-retries", String.valueOf(retries));
        String waitKey = waitOrigin != null ? waitOrigin.key : key;
        int waitLine = waitOrigin != null ? waitOrigin.line : line;
        if (wait.custom() || retries == 0) {
            mapped.values.put("wait-irrelevant", "");
        } else {
            List<Long> delays = wait.delays(retries);
            long first = delays.get(0);
            if (delays.stream().allMatch(delay -> delay == first)) {
                if (first > 0) {
                    mapped.values.put("delay", SpringValues.format(Duration.ofMillis(first)));
                }
            } else {
                long last = delays.get(delays.size() - 1);
                long max = wait.maxMillis() >= 0 && RetryWait.doubling(first, wait.maxMillis(), retries).equals(delays)
                        ? wait.maxMillis() : last;
                mapped.values.put("backoff-initial", SpringValues.format(Duration.ofMillis(first)));
                mapped.values.put("backoff-max", SpringValues.format(Duration.ofMillis(max)));
                List<Long> bulwark = RetryWait.doubling(first, max, retries);
                if (!bulwark.equals(delays)) {
                    mapped.notes.put("backoff-initial", new Note(waitLine, waitKey, "Resilience4j multiplies each "
                            + "wait by " + number(wait.multiplier()) + " and waits " + millis(delays)
                            + "; Bulwark's backoff doubles each wait and waits " + millis(bulwark)));
                }
            }
            if (wait.jitter() > 0) {
                mapped.values.put("jitter", number(wait.jitter()));
            }
        }
        if (!retryExceptions.isEmpty()) {
            mapped.values.put("retry-on", retryExceptions);
        }
        return mapped;
    }

    private double checkedFactor(double factor, Setting setting) {
        if (factor < 0 || factor > 1) {
            throw new BadConfigException(file, setting.line, setting.key + ": expected a factor between 0 and 1, "
                    + "got '" + setting.value() + "'");
        }
        return factor;
    }

    // ---------------------------------------------------------------------------------------------- timeouts

    private Mapped timeout(List<Props> chain, String key, int line) {
        Duration timeout = Duration.ofSeconds(1);
        Setting setting = last(chain, "timeoutduration");
        if (setting != null) {
            timeout = nonNegative(setting);
        }
        Mapped mapped = new Mapped();
        if (timeout.isZero()) {
            notes.add(new Note(setting.line, setting.key, "a timeout of 0 cannot be declared in Bulwark (a duration "
                    + "must be positive): set a duration by hand"));
        } else {
            mapped.values.put("duration", SpringValues.format(timeout));
        }
        return mapped;
    }

    // ---------------------------------------------------------------------------------------------- notes, output

    /** Notes each property that has no Bulwark equivalent, once, where it is written. */
    private void noteUnmapped(Kind kind, Props props) {
        for (Map.Entry<String, Setting> entry : props.settings.entrySet()) {
            Setting setting = entry.getValue();
            if (setting.isPlaceholder()) {
                notes.add(new Note(setting.line, setting.key, "a placeholder, which the migration cannot resolve: "
                        + "not migrated, set it by hand"));
                continue;
            }
            String reason = switch (entry.getKey()) {
                case "eventconsumerbuffersize" -> "no equivalent: Bulwark keeps no event buffer (use its listeners "
                        + "or the bulwark.* meters)";
                case "writablestacktraceenabled" -> SpringValues.bool(file, setting)
                        ? "no equivalent: Bulwark's refusals never fill in a stack trace" : null;
                case "corethreadpoolsize" -> "no equivalent: Resilience4j runs up to coreThreadPoolSize calls until "
                        + "its queue is full, and more only then; Bulwark runs up to max-concurrency before any "
                        + "call waits";
                case "keepaliveduration" -> "no equivalent: Bulwark has no threads to keep alive";
                case "contextpropagators" -> "no equivalent: calls run on the callers' threads, so thread-local "
                        + "context is already there";
                case "ignoreexceptions" -> "no bulwark.* equivalent: retry-on lists what is retried and cannot "
                        + "exclude subclasses; leave them out of retry-on, or build the retry in code with "
                        + "Retry.builder().handleIf(...)";
                case "retryexceptionpredicate" -> "no bulwark.* equivalent for a predicate class: build the retry "
                        + "in code with Retry.builder().handleIf(...)";
                case "resultpredicate", "consumeresultbeforeretryattempt" -> "no equivalent: Bulwark retries "
                        + "failures only, never a result";
                case "failaftermaxattempts" -> SpringValues.bool(file, setting) ? "no equivalent: it concerns "
                        + "results retried by resultPredicate, and Bulwark retries failures only" : null;
                case "intervalbifunction" -> "no equivalent: Bulwark waits a fixed delay or a doubling backoff, "
                        + "with jitter; the retry's wait is not migrated";
                case "cancelrunningfuture" -> SpringValues.bool(file, setting) ? null : "no equivalent: at the "
                        + "deadline Bulwark's timeout always cancels the call's future (Resilience4j's default)";
                default -> null;
            };
            if (reason != null) {
                notes.add(new Note(setting.line, setting.key, reason));
            }
        }
    }

    private void emit(String group, String name, Mapped mapped, Set<String> keys) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Map.Entry<String, Object> entry : mapped.values.entrySet()) {
            if (keys.contains(entry.getKey())) {
                values.put(entry.getKey(), entry.getValue());
            }
        }
        config.policies.get(group).put(name, values);
        mapped.emitNotes(values.keySet());
    }

    /** The keys whose value differs from what the policy would inherit. */
    private static Set<String> differing(Map<String, Object> values, Map<String, Object> reference) {
        return values.entrySet().stream()
                .filter(entry -> !entry.getValue().equals(reference.get(entry.getKey())))
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static Map<String, Object> subset(Map<String, Object> values, Set<String> keys) {
        Map<String, Object> subset = new LinkedHashMap<>();
        values.forEach((key, value) -> {
            if (keys.contains(key)) {
                subset.put(key, value);
            }
        });
        return subset;
    }

    private static boolean usable(Setting setting) {
        return setting != null && !setting.isPlaceholder();
    }

    private Duration nonNegative(Setting setting) {
        Duration duration = SpringValues.duration(file, setting);
        if (duration.isNegative()) {
            throw new BadConfigException(file, setting.line, setting.key + ": must not be negative, got '"
                    + setting.value() + "' (Resilience4j refuses to start)");
        }
        return duration;
    }

    private BadConfigException atLeast(Setting setting, String minimum) {
        return new BadConfigException(file, setting.line, setting.key + ": must be at least " + minimum + ", got '"
                + setting.value() + "' (Resilience4j refuses to start)");
    }

    private static String number(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    private static String millis(List<Long> delays) {
        return delays.stream().map(String::valueOf).collect(Collectors.joining(", ")) + " ms";
    }

    /** One policy's bulwark settings, with the notes that go with some of them when they are printed. */
    private final class Mapped {
        final Map<String, Object> values = new LinkedHashMap<>();
        final Map<String, Note> notes = new LinkedHashMap<>();

        void emitNotes(Set<String> printed) {
            notes.forEach((key, note) -> {
                if (printed.contains(key)) {
                    Resilience4jMigration.this.notes.add(note);
                }
            });
        }
    }
}
