package dev.bulwark.initcheck;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * Which of the project's classes may have to be initialised while another one is being initialised, read from
 * bytecode: an edge {@code C -> D} means that initialising {@code C} (JVMS §5.5) may start, or wait for, the
 * initialisation of {@code D} before {@code C}'s own ends. A cycle of such edges between two or more classes is a
 * deadlock waiting for two threads that enter it at different classes: each holds the initialisation of one and
 * waits for the other's for ever (the JVM neither detects this nor times it out).
 *
 * <p>The edges of {@code C}:
 * <ul>
 *   <li>{@code C}'s superclass, and each superinterface (direct or not) that declares a default method, when they
 *       are project classes: the JVM initialises them as part of initialising {@code C} (JVMS §5.5 step 7), which
 *       makes a superclass whose initialiser uses a subclass the classic deadlock;</li>
 *   <li>in every method that {@code C.<clinit>} may run, followed through project code: the class that
 *       {@code new}, {@code getstatic}, {@code putstatic} and {@code invokestatic} initialise (for a member, the
 *       class that declares it, as resolution finds it), and the reflective triggers
 *       {@code MethodHandles.Lookup.ensureInitialized(D.class)}, {@code Class.forName("D")} and
 *       {@code Class.forName("D", true, loader)} whose arguments are constants.</li>
 * </ul>
 * Which methods {@code C.<clinit>} may run is found by class hierarchy analysis: {@code invokestatic} and
 * {@code invokespecial} run the method resolution finds; {@code invokevirtual} and {@code invokeinterface} run that
 * one and every declaration of the same method in a project class below the call's owner (a JDK type included: a
 * call of {@code Runnable.run} reaches every project {@code run()}), and the body of every project lambda or method
 * reference whose functional interface is the owner or below it and whose method this is, wherever it was made.
 * A lambda made in code the initialiser runs is also followed where it is made, unless data flow shows that
 * nothing can call it there: it only goes into a field, an array, a return value or another lambda (then whoever
 * calls it later goes through an interface call, above), or it is the body of a new thread (which runs on that
 * thread, and the initialiser does not wait for it). Given to any other method (the JDK's {@code forEach}, a
 * project method) it may be called at once, so it is followed.
 *
 * <p>Cycles are looked for between units: a class, with the anonymous and local classes merged into it that only
 * its own code can start initialising (see {@link #mergeUnnameable()}: an enum constant with a body is otherwise a
 * cycle with its enum that cannot deadlock).
 *
 * <p>Every branch is taken, and the JDK's and other libraries' code is not read: a library method that calls back
 * into project code other than through a lambda or an override above is not seen.
 */
final class InitGraph {

    /** Which lambdas made in initialising code are followed where they are made; see the class documentation. */
    enum Lambdas {
        /** Those that data flow says may be called there: the rule of the check. */
        WHERE_CALLED,
        /** All of them: an upper bound, to measure what the rule leaves out. */
        ALL
    }

    /** One place in the code: a method and a line of its source file. */
    record Place(String owner, String method, String sourceFile, int line) {
        @Override
        public String toString() {
            return "at " + dotted(owner) + "." + method + "(" + (sourceFile == null ? "?" : sourceFile)
                    + (line > 0 ? ":" + line : "") + ")";
        }
    }

    /**
     * {@code from}'s initialisation may initialise {@code to}: the instruction that does it, and the way to it, the
     * innermost place first and {@code from.<clinit>} last (no place for a superclass or superinterface).
     */
    record Edge(String from, String to, String instruction, List<Place> stack) {
    }

    private final Map<String, ClassModel> classes = new TreeMap<>();
    private final List<Lambda> allLambdas = new ArrayList<>();
    private final Lambdas lambdas;
    private final ClassLoader otherTypes;
    private final Map<String, Map<String, Edge>> edges = new TreeMap<>();
    private final Map<String, Set<String>> supertypes = new HashMap<>();
    private final Map<String, List<Target>> virtualTargets = new HashMap<>();
    /** The class whose initialisation each class's is part of (itself, unless {@link #mergeUnnameable()}). */
    private final Map<String, String> unit = new HashMap<>();
    /** Edges between units: from, to, and the class edges that make it. */
    private final Map<String, Map<String, List<Edge>>> unitEdges = new TreeMap<>();

    private InitGraph(Lambdas lambdas, ClassLoader otherTypes) {
        this.lambdas = lambdas;
        this.otherTypes = otherTypes;
    }

    /**
     * Builds the graph of the given classes.
     *
     * @param bytes class files by internal name
     * @param lambdas which lambdas are followed where they are made
     * @param otherTypes loads (without initialising) the supertypes that are not project classes, to know which
     *     project classes are below a JDK or library type
     */
    static InitGraph of(Map<String, byte[]> bytes, Lambdas lambdas, ClassLoader otherTypes) {
        InitGraph graph = new InitGraph(lambdas, otherTypes);
        for (byte[] classFile : bytes.values()) {
            ClassModel model = read(classFile);
            graph.classes.put(model.name, model);
            for (MethodModel method : model.methods.values()) {
                for (Op op : method.ops) {
                    if (op instanceof Lambda lambda) {
                        graph.allLambdas.add(lambda);
                    }
                }
            }
        }
        for (ClassModel model : graph.classes.values()) {
            graph.edges.put(model.name, new TreeMap<>());
            graph.addSupertypeEdges(model);
            graph.walkInitialiser(model);
        }
        graph.mergeUnnameable();
        return graph;
    }

    /** Every class read, by internal name. */
    Set<String> classes() {
        return classes.keySet();
    }

    /** The edges out of {@code from}, one per target (the first way found, a shortest one). */
    Collection<Edge> edgesFrom(String from) {
        return edges.getOrDefault(from, Map.of()).values();
    }

    /** The edge from {@code from} to {@code to}, or {@code null}. */
    Edge edge(String from, String to) {
        return edges.getOrDefault(from, Map.of()).get(to);
    }

    /**
     * The strongly connected components of two or more units (a class, with the anonymous and local classes merged
     * into it), each sorted, by their first unit. One unit alone is no deadlock even if its initialiser needs
     * itself: the initialising thread goes on into its own class.
     */
    List<List<String>> cycles() {
        List<List<String>> found = new ArrayList<>();
        for (Set<String> component : new Tarjan().components()) {
            if (component.size() > 1) {
                List<String> sorted = new ArrayList<>(component);
                sorted.sort(Comparator.naturalOrder());
                found.add(sorted);
            }
        }
        found.sort(Comparator.comparing(component -> component.get(0)));
        return found;
    }

    /** The class whose initialisation {@code type}'s is part of: itself, or the class it is merged into. */
    String unitOf(String type) {
        String at = type;
        for (String next = unit.getOrDefault(at, at); !next.equals(at); next = unit.getOrDefault(at, at)) {
            at = next;
        }
        return at;
    }

    /** A shortest cycle inside {@code component} through its first unit, as the units along it. */
    List<String> shortestCycle(List<String> component) {
        String start = component.get(0);
        Set<String> inside = new HashSet<>(component);
        Map<String, String> parent = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String at = queue.removeFirst();
            for (String to : unitEdges.getOrDefault(at, Map.of()).keySet()) {
                if (to.equals(start)) {
                    List<String> cycle = new ArrayList<>();
                    for (String c = at; c != null; c = parent.get(c)) {
                        cycle.add(0, c);
                    }
                    return cycle;
                }
                if (inside.contains(to) && !parent.containsKey(to)) {
                    parent.put(to, at);
                    queue.addLast(to);
                }
            }
        }
        throw new IllegalStateException("no cycle through " + start);
    }

    /**
     * Describes cycles for a failure message: a shortest cycle through each component (and its units, when there
     * are more), then every edge inside the component with the instruction that makes it and the way to it.
     */
    String describe(List<List<String>> cycles) {
        StringBuilder text = new StringBuilder();
        int number = 0;
        for (List<String> component : cycles) {
            number++;
            List<String> cycle = shortestCycle(component);
            text.append("\nCycle ").append(number).append(" of ").append(cycles.size()).append(": ");
            for (String c : cycle) {
                text.append(dotted(c)).append(" -> ");
            }
            text.append(dotted(cycle.get(0)));
            if (component.size() > cycle.size()) {
                text.append("\n  (one of the cycles among ").append(component.size()).append(" classes: ")
                        .append(component.stream().map(InitGraph::dotted).toList()).append(')');
            }
            for (String from : component) {
                for (Map.Entry<String, List<Edge>> to : unitEdges.getOrDefault(from, Map.of()).entrySet()) {
                    if (!component.contains(to.getKey())) {
                        continue;
                    }
                    for (Edge edge : to.getValue()) {
                        text.append("\n  ").append(dotted(edge.from())).append(" -> ").append(dotted(edge.to()))
                                .append(": ").append(edge.instruction());
                        for (Place place : edge.stack()) {
                            text.append("\n      ").append(place);
                        }
                    }
                }
            }
        }
        return text.toString();
    }

    static String dotted(String internalName) {
        return internalName.replace('/', '.');
    }

    // ---------------------------------------------------------------------------------------------------------
    // Edges

    private void addSupertypeEdges(ClassModel model) {
        if (model.isInterface) {
            // Initialising an interface does not initialise its superinterfaces (JVMS §5.5).
            return;
        }
        if (classes.containsKey(model.superName)) {
            addEdge(model.name, model.superName, "extends " + dotted(model.superName), List.of());
        }
        for (String type : supertypes(model.name)) {
            ClassModel supertype = classes.get(type);
            if (supertype != null && supertype.isInterface && supertype.declaresDefaultMethod()) {
                addEdge(model.name, type, "implements " + dotted(type) + ", which declares a default method",
                        List.of());
            }
        }
    }

    /** A breadth-first walk of the code {@code <clinit>} may run, so the first way found to a class is shortest. */
    private void walkInitialiser(ClassModel owner) {
        MethodModel clinit = owner.methods.get("<clinit>()V");
        if (clinit == null) {
            return;
        }
        Map<MethodModel, Visit> visited = new HashMap<>();
        Set<Call> calledThroughLambdas = new HashSet<>();
        Deque<Visit> queue = new ArrayDeque<>();
        Visit first = new Visit(clinit, null, 0);
        visited.put(clinit, first);
        queue.add(first);
        while (!queue.isEmpty()) {
            Visit visit = queue.removeFirst();
            Deque<Op> ops = new ArrayDeque<>(visit.method.ops);
            while (!ops.isEmpty()) {
                Op op = ops.removeFirst();
                for (Target target : targets(op)) {
                    if (target.initialises != null) {
                        addEdge(owner.name, target.initialises, target.instruction, visit.stack(op.line()));
                    }
                    if (target.runs != null && !visited.containsKey(target.runs)) {
                        Visit next = new Visit(target.runs, visit, op.line());
                        visited.put(target.runs, next);
                        queue.addLast(next);
                    }
                    if (target.calls != null && calledThroughLambdas.add(target.calls)) {
                        ops.addFirst(target.calls);
                    }
                }
            }
        }
    }

    /**
     * What one instruction may initialise, a project method it may run, and a virtual call it makes (a method
     * reference such as {@code list::add}: expanded where it is met, as a lambda of a lambda could loop).
     */
    private record Target(String initialises, String instruction, MethodModel runs, Call calls) {
        Target(String initialises, String instruction, MethodModel runs) {
            this(initialises, instruction, runs, null);
        }
    }

    private List<Target> targets(Op op) {
        if (op instanceof Init init) {
            String target = init.kind == InitKind.FIELD
                    ? declaringClassOfField(init.owner, init.name, init.descriptor)
                    : init.owner;
            return List.of(new Target(target, init.text, null));
        }
        if (op instanceof Call call) {
            return targetsOfCall(call.opcode, call.owner, call.name, call.descriptor, call.text);
        }
        Lambda lambda = (Lambda) op;
        boolean followed = switch (lambdas) {
            case ALL -> true;
            case WHERE_CALLED -> lambda.mayRun || lambda.constructors.stream().anyMatch(type -> !isThread(type));
        };
        return followed ? targetsOfLambda(lambda, "may call") : List.of();
    }

    /** Calling a lambda calls its implementation method, as its handle's kind says (JVMS §5.4.3.5). */
    private List<Target> targetsOfLambda(Lambda lambda, String how) {
        Handle impl = lambda.implementation;
        String text = how + " lambda or method reference " + dotted(impl.getOwner()) + "::" + impl.getName()
                + " (" + dotted(lambda.functionalInterface) + ")";
        return switch (impl.getTag()) {
            case Opcodes.H_INVOKESTATIC -> targetsOfCall(Opcodes.INVOKESTATIC, impl.getOwner(), impl.getName(),
                    impl.getDesc(), text);
            case Opcodes.H_INVOKESPECIAL -> targetsOfCall(Opcodes.INVOKESPECIAL, impl.getOwner(), impl.getName(),
                    impl.getDesc(), text);
            case Opcodes.H_INVOKEVIRTUAL, Opcodes.H_INVOKEINTERFACE -> List.of(new Target(null, text, null,
                    new Call(Opcodes.INVOKEVIRTUAL, impl.getOwner(), impl.getName(), impl.getDesc(), text,
                            lambda.line)));
            case Opcodes.H_NEWINVOKESPECIAL -> {
                List<Target> all = new ArrayList<>(targetsOfCall(Opcodes.INVOKESPECIAL, impl.getOwner(),
                        impl.getName(), impl.getDesc(), text));
                all.add(new Target(impl.getOwner(), text + ", which makes a new " + dotted(impl.getOwner()),
                        null));
                yield all;
            }
            default -> List.of();
        };
    }

    private List<Target> targetsOfCall(int opcode, String owner, String name, String descriptor, String text) {
        if (opcode == Opcodes.INVOKESTATIC || opcode == Opcodes.INVOKESPECIAL) {
            MethodModel resolved = resolveMethod(owner, name, descriptor);
            if (resolved == null) {
                return List.of();
            }
            // invokestatic initialises the class that declares the method resolution finds (JVMS §5.5).
            return List.of(new Target(opcode == Opcodes.INVOKESTATIC ? resolved.owner : null, text, resolved));
        }
        return virtualTargets(owner, name, descriptor);
    }

    private void addEdge(String from, String to, String instruction, List<Place> stack) {
        if (to == null || to.equals(from) || !classes.containsKey(to)) {
            return;
        }
        edges.get(from).putIfAbsent(to, new Edge(from, to, instruction, stack));
    }

    /**
     * Merges each anonymous or local class into the class that encloses it when nothing else can start its
     * initialisation: its every trigger in the project ({@code new}, a static member, a method reference, a
     * constant {@code Class.forName}) is in the enclosing class's code or its own. No code outside can name such a
     * class (JLS §15.9.5, §14.3), and a thread runs the enclosing class's code only once it initialises that class
     * or has done so: by a static method (initialised first), an instance's method (its class initialised), or a
     * lambda's body (a static method, or an instance's). So the class's initialisation is always started by the
     * thread that initialises the enclosing class, or after that ended, and a cycle through the two alone (an enum
     * constant with a body: {@code Op -> Op$1} by {@code new}, {@code Op$1 -> Op} as its superclass) is no deadlock.
     * What could still start it is out of the graph: reflection by a computed name, deserialisation, or an instance
     * of the enclosing class published by its static initialiser before it ends and used by another thread.
     */
    private void mergeUnnameable() {
        Map<String, Set<String>> triggeredFrom = new HashMap<>();
        for (ClassModel model : classes.values()) {
            for (MethodModel method : model.methods.values()) {
                for (Op op : method.ops) {
                    for (String target : initialisedBy(op)) {
                        triggeredFrom.computeIfAbsent(target, key -> new HashSet<>()).add(model.name);
                    }
                }
            }
        }
        boolean merged = true;
        while (merged) {
            merged = false;
            for (ClassModel model : classes.values()) {
                if (model.enclosingClass == null || !classes.containsKey(model.enclosingClass)
                        || !unitOf(model.name).equals(model.name)) {
                    continue;
                }
                String into = unitOf(model.enclosingClass);
                if (triggeredFrom.getOrDefault(model.name, Set.of()).stream()
                        .allMatch(site -> site.equals(model.name) || unitOf(site).equals(into))) {
                    unit.put(model.name, into);
                    merged = true;
                }
            }
        }
        for (Map<String, Edge> out : edges.values()) {
            for (Edge edge : out.values()) {
                String from = unitOf(edge.from());
                String to = unitOf(edge.to());
                if (!from.equals(to)) {
                    unitEdges.computeIfAbsent(from, key -> new TreeMap<>())
                            .computeIfAbsent(to, key -> new ArrayList<>()).add(edge);
                }
            }
        }
    }

    /** The classes an instruction, wherever it is, initialises when it runs (a lambda: when it is called). */
    private List<String> initialisedBy(Op op) {
        if (op instanceof Init init) {
            String target = init.kind == InitKind.FIELD
                    ? declaringClassOfField(init.owner, init.name, init.descriptor)
                    : init.owner;
            return target == null ? List.of() : List.of(target);
        }
        if (op instanceof Call call) {
            MethodModel resolved = call.opcode == Opcodes.INVOKESTATIC
                    ? resolveMethod(call.owner, call.name, call.descriptor)
                    : null;
            return resolved == null ? List.of() : List.of(resolved.owner);
        }
        Handle impl = ((Lambda) op).implementation;
        return switch (impl.getTag()) {
            case Opcodes.H_INVOKESTATIC, Opcodes.H_NEWINVOKESPECIAL, Opcodes.H_GETSTATIC, Opcodes.H_PUTSTATIC ->
                    List.of(impl.getOwner());
            default -> List.of();
        };
    }

    // ---------------------------------------------------------------------------------------------------------
    // Resolution (JVMS §5.4.3) over project classes only: a member found in a JDK class is not project code.

    /** The class that declares the field (itself, its superinterfaces, then its superclass), or null. */
    private String declaringClassOfField(String owner, String name, String descriptor) {
        ClassModel model = classes.get(owner);
        if (model == null) {
            return null;
        }
        if (model.fields.contains(name + ":" + descriptor)) {
            return owner;
        }
        for (String type : model.interfaces) {
            String found = declaringClassOfField(type, name, descriptor);
            if (found != null) {
                return found;
            }
        }
        return model.superName == null ? null : declaringClassOfField(model.superName, name, descriptor);
    }

    /** The method resolution finds: in the class or its superclasses, else a default method above, or null. */
    private MethodModel resolveMethod(String owner, String name, String descriptor) {
        String key = name + descriptor;
        for (ClassModel c = classes.get(owner); c != null; c = classes.get(c.superName)) {
            MethodModel found = c.methods.get(key);
            if (found != null) {
                return found;
            }
        }
        for (String type : supertypes(owner)) {
            ClassModel c = classes.get(type);
            MethodModel found = c == null ? null : c.methods.get(key);
            if (found != null && c.isInterface && !found.isAbstract()) {
                return found;
            }
        }
        return null;
    }

    /**
     * What a virtual call may run: the method resolution finds, every non-abstract declaration of the same method
     * in a project class below {@code owner}, and every project lambda of {@code owner} or below whose method it is.
     */
    private List<Target> virtualTargets(String owner, String name, String descriptor) {
        String key = owner + "." + name + descriptor;
        List<Target> known = virtualTargets.get(key);
        if (known != null) {
            return known;
        }
        String text = (classes.containsKey(owner) && classes.get(owner).isInterface
                ? "invokeinterface " : "invokevirtual ") + dotted(owner) + "." + name;
        Set<MethodModel> methods = new LinkedHashSet<>();
        MethodModel resolved = resolveMethod(owner, name, descriptor);
        if (resolved != null && !resolved.isAbstract()) {
            methods.add(resolved);
        }
        for (ClassModel c : classes.values()) {
            MethodModel declared = c.methods.get(name + descriptor);
            if (declared != null && !declared.isAbstract() && !declared.isStatic()
                    && supertypes(c.name).contains(owner)) {
                methods.add(declared);
            }
        }
        List<Target> targets = new ArrayList<>();
        for (MethodModel method : methods) {
            targets.add(new Target(null, text, method));
        }
        for (Lambda lambda : allLambdas) {
            if (lambda.method.equals(name) && lambda.methodDescriptor.equals(descriptor)
                    && (lambda.functionalInterface.equals(owner)
                            || supertypes(lambda.functionalInterface).contains(owner))) {
                targets.addAll(targetsOfLambda(lambda, text + ", which may run"));
            }
        }
        known = List.copyOf(targets);
        virtualTargets.put(key, known);
        return known;
    }

    private boolean isThread(String type) {
        return type.equals("java/lang/Thread") || supertypes(type).contains("java/lang/Thread");
    }

    /** Every supertype of {@code type}, direct or not, itself excluded: project ones read, others loaded. */
    private Set<String> supertypes(String type) {
        Set<String> known = supertypes.get(type);
        if (known != null) {
            return known;
        }
        Set<String> all = new LinkedHashSet<>();
        Deque<String> pending = new ArrayDeque<>(directSupertypes(type));
        while (!pending.isEmpty()) {
            String next = pending.removeFirst();
            if (all.add(next)) {
                pending.addAll(directSupertypes(next));
            }
        }
        supertypes.put(type, all);
        return all;
    }

    private List<String> directSupertypes(String type) {
        ClassModel model = classes.get(type);
        List<String> direct = new ArrayList<>();
        if (model != null) {
            if (model.superName != null) {
                direct.add(model.superName);
            }
            direct.addAll(Arrays.asList(model.interfaces));
            return direct;
        }
        try {
            Class<?> loaded = Class.forName(dotted(type), false, otherTypes);
            if (loaded.getSuperclass() != null) {
                direct.add(Type.getInternalName(loaded.getSuperclass()));
            }
            for (Class<?> i : loaded.getInterfaces()) {
                direct.add(Type.getInternalName(i));
            }
        } catch (ClassNotFoundException | LinkageError absent) {
            // An optional dependency that is not here: no project class below it can be loaded either.
        }
        return direct;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Strongly connected components (Tarjan; recursive, as the graph has hundreds of classes, not millions)

    private final class Tarjan {
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new HashSet<>();
        private final List<Set<String>> components = new ArrayList<>();

        List<Set<String>> components() {
            for (String c : classes.keySet()) {
                if (unitOf(c).equals(c) && !index.containsKey(c)) {
                    visit(c);
                }
            }
            return components;
        }

        private void visit(String c) {
            index.put(c, index.size());
            low.put(c, index.get(c));
            stack.push(c);
            onStack.add(c);
            for (String d : unitEdges.getOrDefault(c, Map.of()).keySet()) {
                if (!index.containsKey(d)) {
                    visit(d);
                    low.put(c, Math.min(low.get(c), low.get(d)));
                } else if (onStack.contains(d)) {
                    low.put(c, Math.min(low.get(c), index.get(d)));
                }
            }
            if (low.get(c).equals(index.get(c))) {
                Set<String> component = new LinkedHashSet<>();
                String d;
                do {
                    d = stack.pop();
                    onStack.remove(d);
                    component.add(d);
                } while (!d.equals(c));
                components.add(component);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The model read from class files

    private static final class ClassModel {
        String name;
        String superName;
        String[] interfaces;
        boolean isInterface;
        /** For an anonymous or local class, the class whose code declares it; else null. */
        String enclosingClass;
        final Map<String, MethodModel> methods = new LinkedHashMap<>();
        final Set<String> fields = new HashSet<>();

        boolean declaresDefaultMethod() {
            return methods.values().stream()
                    .anyMatch(m -> !m.isAbstract() && !m.isStatic() && !m.name.startsWith("<"));
        }
    }

    private static final class MethodModel {
        final String owner;
        final String name;
        final int access;
        final String sourceFile;
        final List<Op> ops = new ArrayList<>();

        MethodModel(String owner, String name, int access, String sourceFile) {
            this.owner = owner;
            this.name = name;
            this.access = access;
            this.sourceFile = sourceFile;
        }

        boolean isAbstract() {
            return (access & Opcodes.ACC_ABSTRACT) != 0;
        }

        boolean isStatic() {
            return (access & Opcodes.ACC_STATIC) != 0;
        }
    }

    /** A method reached from a static initialiser, and the call that reached it (none for the initialiser). */
    private static final class Visit {
        final MethodModel method;
        final Visit caller;
        final int callLine;

        Visit(MethodModel method, Visit caller, int callLine) {
            this.method = method;
            this.caller = caller;
            this.callLine = callLine;
        }

        List<Place> stack(int line) {
            List<Place> places = new ArrayList<>();
            places.add(new Place(method.owner, method.name, method.sourceFile, line));
            for (Visit v = this; v.caller != null; v = v.caller) {
                places.add(new Place(v.caller.method.owner, v.caller.method.name, v.caller.method.sourceFile,
                        v.callLine));
            }
            return List.copyOf(places);
        }
    }

    private sealed interface Op permits Init, Call, Lambda {
        int line();
    }

    private enum InitKind { NEW, FIELD, REFLECTIVE }

    /** An instruction that initialises a class by itself ({@code invokestatic} is a {@link Call}). */
    private record Init(InitKind kind, String owner, String name, String descriptor, String text, int line)
            implements Op {
    }

    private record Call(int opcode, String owner, String name, String descriptor, String text, int line)
            implements Op {
    }

    /**
     * A lambda or method reference made here: its implementation, its functional interface and that interface's
     * method (name and erased descriptor), and where the object goes: {@code mayRun} when it is the receiver or an
     * argument of a method call other than a constructor, {@code constructors} the classes of the constructors it
     * is given to (a thread's body if they are threads).
     */
    private record Lambda(Handle implementation, String functionalInterface, String method,
            String methodDescriptor, boolean mayRun, Set<String> constructors, int line) implements Op {
    }

    /** Reads one class file into a {@link ClassModel}. */
    private static ClassModel read(byte[] classFile) {
        ClassNode node = new ClassNode();
        new ClassReader(classFile).accept(node, ClassReader.SKIP_FRAMES);
        ClassModel model = new ClassModel();
        model.name = node.name;
        model.superName = node.superName;
        model.interfaces = node.interfaces.toArray(new String[0]);
        model.isInterface = (node.access & Opcodes.ACC_INTERFACE) != 0;
        model.enclosingClass = node.outerClass;
        for (FieldNode field : node.fields) {
            model.fields.add(field.name + ":" + field.desc);
        }
        for (MethodNode method : node.methods) {
            MethodModel read = new MethodModel(node.name, method.name, method.access, node.sourceFile);
            new CodeReader(node.name, method, read).read();
            model.methods.put(method.name + method.desc, read);
        }
        return model;
    }

    /**
     * Turns one method's code into {@link Op}s. The arguments of the reflective triggers, and where a lambda goes,
     * come from data flow ({@link SourceInterpreter}): {@code ldc D.class} for {@code ensureInitialized},
     * {@code ldc "D"} (and {@code iconst_1}, for the three-argument form) for {@code Class.forName}; a name computed
     * at run time is not seen.
     */
    private static final class CodeReader {
        /** Stands for {@code iconst_1}, distinct from any constant an {@code ldc} pushes. */
        private static final Object TRUE = new Object();

        private final String owner;
        private final MethodNode method;
        private final MethodModel model;
        private Frame<SourceValue>[] frames;
        private boolean analysed;

        CodeReader(String owner, MethodNode method, MethodModel model) {
            this.owner = owner;
            this.method = method;
            this.model = model;
        }

        void read() {
            int line = 0;
            for (AbstractInsnNode insn : method.instructions) {
                if (insn instanceof LineNumberNode number) {
                    line = number.line;
                } else if (insn instanceof TypeInsnNode type && type.getOpcode() == Opcodes.NEW) {
                    model.ops.add(new Init(InitKind.NEW, type.desc, null, null, "new " + dotted(type.desc), line));
                } else if (insn instanceof FieldInsnNode field && (field.getOpcode() == Opcodes.GETSTATIC
                        || field.getOpcode() == Opcodes.PUTSTATIC)) {
                    String text = (field.getOpcode() == Opcodes.GETSTATIC ? "getstatic " : "putstatic ")
                            + dotted(field.owner) + "." + field.name;
                    model.ops.add(new Init(InitKind.FIELD, field.owner, field.name, field.desc, text, line));
                } else if (insn instanceof MethodInsnNode call) {
                    readCall(call, line);
                } else if (insn instanceof InvokeDynamicInsnNode indy
                        && indy.bsm.getOwner().equals("java/lang/invoke/LambdaMetafactory")
                        && indy.bsmArgs.length >= 2 && indy.bsmArgs[1] instanceof Handle implementation) {
                    readLambda(indy, implementation, line);
                }
            }
        }

        private void readCall(MethodInsnNode call, int line) {
            if (call.owner.equals("java/lang/invoke/MethodHandles$Lookup") && call.name.equals("ensureInitialized")
                    && constantArgument(call, 0) instanceof Type type && type.getSort() == Type.OBJECT) {
                model.ops.add(new Init(InitKind.REFLECTIVE, type.getInternalName(), null, null,
                        "MethodHandles.Lookup.ensureInitialized(" + type.getClassName() + ".class)", line));
            } else if (call.owner.equals("java/lang/Class") && call.name.equals("forName")
                    && call.desc.startsWith("(Ljava/lang/String;")) {
                boolean oneArgument = call.desc.equals("(Ljava/lang/String;)Ljava/lang/Class;");
                boolean initialises = oneArgument
                        || call.desc.startsWith("(Ljava/lang/String;Z") && constantArgument(call, 1) == TRUE;
                if (initialises && constantArgument(call, 0) instanceof String name) {
                    model.ops.add(new Init(InitKind.REFLECTIVE, name.replace('.', '/'), null, null,
                            "Class.forName(\"" + name + "\"" + (oneArgument ? ")" : ", true, ...)"), line));
                }
            }
            String kind = switch (call.getOpcode()) {
                case Opcodes.INVOKESTATIC -> "invokestatic ";
                case Opcodes.INVOKESPECIAL -> "invokespecial ";
                case Opcodes.INVOKEVIRTUAL -> "invokevirtual ";
                default -> "invokeinterface ";
            };
            model.ops.add(new Call(call.getOpcode(), call.owner, call.name, call.desc,
                    kind + dotted(call.owner) + "." + call.name, line));
        }

        /** Where the object goes, from every instruction that takes it off the stack. */
        private void readLambda(InvokeDynamicInsnNode indy, Handle implementation, int line) {
            boolean mayRun = false;
            Set<String> constructors = new HashSet<>();
            if (frames() == null) {
                mayRun = true;
            } else {
                for (AbstractInsnNode insn : method.instructions) {
                    Frame<SourceValue> frame = frame(insn);
                    int taken = frame == null ? 0 : valuesTaken(insn);
                    for (int i = 0; i < taken; i++) {
                        SourceValue value = frame.getStack(frame.getStackSize() - taken + i);
                        if (!origins(value, new HashSet<>()).contains(indy)) {
                            continue;
                        }
                        if (insn instanceof MethodInsnNode call && call.name.equals("<init>") && i > 0) {
                            constructors.add(call.owner);
                        } else if (insn instanceof MethodInsnNode) {
                            mayRun = true;
                        }
                        // Else a field, an array, a return value, another lambda's capture: kept for later.
                    }
                }
            }
            Type methodType = (Type) indy.bsmArgs[0];
            model.ops.add(new Lambda(implementation, Type.getReturnType(indy.desc).getInternalName(), indy.name,
                    methodType.getDescriptor(), mayRun, Set.copyOf(constructors), line));
        }

        /** How many stack values {@code insn} takes that, were one a lambda, could call it or keep it. */
        private static int valuesTaken(AbstractInsnNode insn) {
            if (insn instanceof MethodInsnNode call) {
                return Type.getArgumentTypes(call.desc).length + (call.getOpcode() == Opcodes.INVOKESTATIC ? 0 : 1);
            }
            if (insn instanceof InvokeDynamicInsnNode indy) {
                return Type.getArgumentTypes(indy.desc).length;
            }
            return switch (insn.getOpcode()) {
                case Opcodes.PUTFIELD, Opcodes.PUTSTATIC, Opcodes.AASTORE, Opcodes.ARETURN -> 1;
                default -> 0;
            };
        }

        /** The constant the argument at {@code index} always is ({@link #TRUE} for {@code iconst_1}), or null. */
        private Object constantArgument(MethodInsnNode call, int index) {
            Frame<SourceValue> frame = frames() == null ? null : frame(call);
            if (frame == null) {
                return null;
            }
            int arguments = Type.getArgumentTypes(call.desc).length;
            Set<AbstractInsnNode> origins =
                    origins(frame.getStack(frame.getStackSize() - arguments + index), new HashSet<>());
            if (origins.size() != 1) {
                return null;
            }
            AbstractInsnNode origin = origins.iterator().next();
            if (origin instanceof LdcInsnNode ldc) {
                return ldc.cst;
            }
            return origin.getOpcode() == Opcodes.ICONST_1 ? TRUE : null;
        }

        /**
         * The instructions that made a value, looking through copies: a local variable's load (to the stores into
         * it), a store, {@code dup} and {@code checkcast}. A method's parameter has no such instruction.
         */
        private Set<AbstractInsnNode> origins(SourceValue value, Set<AbstractInsnNode> seen) {
            Set<AbstractInsnNode> found = new HashSet<>();
            for (AbstractInsnNode insn : value.insns) {
                if (!seen.add(insn)) {
                    continue;
                }
                Frame<SourceValue> frame = frame(insn);
                int opcode = insn.getOpcode();
                if (frame == null) {
                    found.add(insn);
                } else if (insn instanceof VarInsnNode load && opcode >= Opcodes.ILOAD && opcode <= Opcodes.ALOAD) {
                    found.addAll(origins(frame.getLocal(load.var), seen));
                } else if (insn instanceof VarInsnNode || opcode == Opcodes.DUP || opcode == Opcodes.CHECKCAST) {
                    found.addAll(origins(frame.getStack(frame.getStackSize() - 1), seen));
                } else {
                    found.add(insn);
                }
            }
            return found;
        }

        private Frame<SourceValue> frame(AbstractInsnNode insn) {
            return frames[method.instructions.indexOf(insn)];
        }

        /** The frames of the data flow analysis, made when first needed; null if the analysis fails. */
        private Frame<SourceValue>[] frames() {
            if (!analysed) {
                analysed = true;
                try {
                    frames = new Analyzer<>(new SourceInterpreter()).analyze(owner, method);
                } catch (AnalyzerException e) {
                    frames = null;
                }
            }
            return frames;
        }
    }
}
