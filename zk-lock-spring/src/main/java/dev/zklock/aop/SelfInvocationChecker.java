package dev.zklock.aop;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.zklock.aop.SelfCallSites.Site;
import dev.zklock.aop.SelfInvocationException.SelfCall;

import org.springframework.asm.Type;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.util.ClassUtils;

/**
 * Finds, once per bean class, the calls the bean makes to its own locked (or leader-only)
 * methods through {@code this}, which bypass the proxy and run without the lock (or on
 * every instance): in the class, its superclasses and interfaces (the application's, not
 * the JDK's or Spring's), and the inner, local and anonymous classes written in them,
 * from their class files ({@link SelfCallSites}). A call counts when its receiver is the
 * bean and the method it reaches on the bean's class, after overriding, is locked; unless
 * the caller (or the method a lambda or a local or anonymous class is written in)
 * declares it deliberate with {@code @UnlockedSelfCall}, or the caller is itself leader
 * work of the group the called {@code @LeaderOnly} method leads (it runs in the caller's
 * term).
 *
 * <p>
 * Every {@code @DistributedLock} is applied by a Spring AOP proxy (there is no AspectJ
 * weaving mode, in which a self-call would be locked), so every such call runs unlocked.
 * A class whose class file cannot be read (one generated at runtime) is not checked, with
 * a DEBUG line.
 */
final class SelfInvocationChecker {

	private static final Log logger = LogFactory.getLog(SelfInvocationChecker.class);

	/** Packages of libraries: their classes' calls are not the application's. */
	private static final List<String> LIBRARY_PACKAGES = List.of("java.", "javax.", "jakarta.", "jdk.", "sun.",
			"com.sun.", "kotlin.", "kotlinx.", "org.springframework.");

	/**
	 * The continuation Kotlin makes for a suspend function resumes the function through
	 * the enclosing instance: not a call of the application's.
	 */
	private static final String KOTLIN_CONTINUATION = "kotlin/coroutines/jvm/internal/ContinuationImpl";

	/** How many lambdas and local classes deep a call's method is looked for. */
	private static final int MAX_NESTING = 64;

	private final Map<Class<?>, List<SelfCall>> checked = new ConcurrentHashMap<>();

	/**
	 * The class files of each class of a hierarchy, with its inner classes', read for
	 * some locked method names; empty if its class file cannot be read. Kept while beans
	 * are being created.
	 */
	private final Map<Class<?>, ClassFiles> classFiles = new ConcurrentHashMap<>();

	private volatile boolean startupDone;

	private final AtomicLong nanos = new AtomicLong();

	private final AtomicInteger classFilesRead = new AtomicInteger();

	/**
	 * Check a bean's class, once.
	 * @param beanClass the bean's class
	 * @param beanName the bean's name, for the message
	 * @param operations the class's locked and leader-only methods
	 * @throws SelfInvocationException if the bean calls one of them through {@code this}
	 */
	void check(Class<?> beanClass, String beanName, List<? extends ProxiedMethod> operations) {
		List<SelfCall> calls = this.checked.get(beanClass);
		if (calls == null) {
			if (operations.stream().noneMatch(ProxiedMethod::checksSelfCalls)) {
				return;
			}
			long start = System.nanoTime();
			calls = find(beanClass, operations);
			this.nanos.addAndGet(System.nanoTime() - start);
			this.checked.put(beanClass, calls);
		}
		if (!calls.isEmpty()) {
			throw new SelfInvocationException(beanName, beanClass.getName(), calls);
		}
	}

	/**
	 * Say at DEBUG what the checks cost, and forget the class files: once the singletons
	 * exist, beans made later are mostly of classes seen already.
	 */
	void startupDone() {
		this.startupDone = true;
		if (logger.isDebugEnabled() && !this.checked.isEmpty()) {
			logger.debug("Checked " + this.checked.size() + " bean classes with locked methods for calls to them "
					+ "through 'this' in " + String.format("%.1f", this.nanos.get() / 1e6) + " ms ("
					+ this.classFilesRead.get() + " class files read)");
		}
		this.classFiles.clear();
	}

	private List<SelfCall> find(Class<?> beanClass, List<? extends ProxiedMethod> operations) {
		// Every operation of a method: one with both @LeaderOnly and @DistributedLock is
		// exempt only if the caller covers both
		Map<Method, List<ProxiedMethod>> locked = new HashMap<>();
		Set<String> lockedNames = new HashSet<>();
		for (ProxiedMethod operation : operations) {
			if (!operation.checksSelfCalls()) {
				continue;
			}
			locked.computeIfAbsent(operation.method(), (method) -> new ArrayList<>()).add(operation);
			lockedNames.add(operation.method().getName());
		}
		Map<String, Class<?>> hierarchy = hierarchy(beanClass);
		Map<String, SelfCallSites> sitesByClass = new LinkedHashMap<>();
		for (Class<?> type : hierarchy.values()) {
			for (SelfCallSites sites : classFiles(type, lockedNames)) {
				sitesByClass.putIfAbsent(sites.className(), sites);
			}
		}
		Methods methods = new Methods(beanClass, hierarchy, lockedNames);
		Map<String, ProxiedMethod> callers = new HashMap<>();
		for (ProxiedMethod operation : operations) {
			Method method = operation.method();
			callers.putIfAbsent(Type.getInternalName(method.getDeclaringClass()) + "." + method.getName()
					+ Type.getMethodDescriptor(method), operation);
		}
		Set<SelfCall> calls = new LinkedHashSet<>();
		for (SelfCallSites sites : sitesByClass.values()) {
			boolean inHierarchy = hierarchy.containsKey(sites.className());
			if (!inHierarchy && KOTLIN_CONTINUATION.equals(sites.superName())) {
				continue;
			}
			for (Site site : sites.sites()) {
				// In the bean's classes, a call on their own this; in an inner class, a
				// call on the enclosing instance when it is the bean
				String enclosing = site.enclosingType();
				boolean onBean = inHierarchy ? enclosing == null
						: enclosing != null && hierarchy.containsKey(enclosing);
				if (!onBean) {
					continue;
				}
				Method target = site.special() ? methods.declared(site.owner(), site.name(), site.descriptor())
						: methods.dispatched(site.name(), site.descriptor());
				if (target == null) {
					continue;
				}
				List<ProxiedMethod> targetOperations = locked
					.get(target.isBridge() ? BridgeMethodResolver.findBridgedMethod(target) : target);
				if (targetOperations == null || isDeclaredDeliberate(sitesByClass, sites, site, target.getName())) {
					continue;
				}
				// A plain call (not from a lambda, which may run later) from a method
				// whose own proxy gives the callee what it needs
				ProxiedMethod caller = inHierarchy
						? callers.get(sites.className() + "." + site.caller() + site.callerDescriptor()) : null;
				ProxiedMethod operation = targetOperations.stream()
					.filter((needed) -> caller == null || !caller.covers(needed))
					.findFirst()
					.orElse(null);
				if (operation == null) {
					continue;
				}
				calls.add(new SelfCall(caller(sitesByClass, sites, site), location(sites, site), operation.annotation(),
						operation.describeMethod(), target.getName()));
			}
		}
		return List.copyOf(calls);
	}

	/**
	 * The bean's class, superclasses and interfaces that belong to the application, by
	 * internal name.
	 */
	private static Map<String, Class<?>> hierarchy(Class<?> beanClass) {
		Map<String, Class<?>> hierarchy = new LinkedHashMap<>();
		for (Class<?> type = beanClass; type != null; type = type.getSuperclass()) {
			if (isApplicationClass(type)) {
				hierarchy.put(Type.getInternalName(type), type);
			}
		}
		for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(beanClass)) {
			if (isApplicationClass(type)) {
				hierarchy.put(Type.getInternalName(type), type);
			}
		}
		return hierarchy;
	}

	private static boolean isApplicationClass(Class<?> type) {
		if (type.getClassLoader() == null) {
			return false;
		}
		String name = type.getName();
		for (String library : LIBRARY_PACKAGES) {
			if (name.startsWith(library)) {
				return false;
			}
		}
		return true;
	}

	private List<SelfCallSites> classFiles(Class<?> type, Set<String> names) {
		ClassFiles cached = this.classFiles.get(type);
		if (cached != null && cached.names.equals(names)) {
			return cached.sites;
		}
		List<SelfCallSites> sites = read(type, names);
		if (!this.startupDone) {
			this.classFiles.put(type, new ClassFiles(names, sites));
		}
		return sites;
	}

	/**
	 * Read a class's class file and those of the inner, local and anonymous classes
	 * written in it, at any depth.
	 */
	private List<SelfCallSites> read(Class<?> type, Set<String> names) {
		ClassLoader classLoader = type.getClassLoader();
		List<SelfCallSites> read = new ArrayList<>();
		ArrayDeque<String> pending = new ArrayDeque<>();
		Set<String> seen = new HashSet<>();
		pending.add(Type.getInternalName(type));
		while (!pending.isEmpty()) {
			String className = pending.poll();
			if (!seen.add(className)) {
				continue;
			}
			SelfCallSites sites = read(classLoader, className, type, names);
			if (sites == null) {
				if (read.isEmpty()) {
					return List.of();
				}
				continue;
			}
			read.add(sites);
			pending.addAll(sites.innerClasses());
		}
		return List.copyOf(read);
	}

	private @Nullable SelfCallSites read(ClassLoader classLoader, String className, Class<?> type, Set<String> names) {
		try (InputStream classFile = classLoader.getResourceAsStream(className + ClassUtils.CLASS_FILE_SUFFIX)) {
			if (classFile == null) {
				if (logger.isDebugEnabled()) {
					logger.debug("Not checking " + className.replace('/', '.') + " (of " + type.getName()
							+ ") for calls to locked methods through 'this': it has no class file (a class "
							+ "generated at runtime?)");
				}
				return null;
			}
			this.classFilesRead.incrementAndGet();
			return SelfCallSites.read(classFile, names);
		}
		catch (IOException | RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Not checking " + className.replace('/', '.') + " (of " + type.getName()
						+ ") for calls to locked methods through 'this': its class file cannot be read (" + ex + ")");
			}
			return null;
		}
	}

	/**
	 * Whether the calling method, or the method a lambda or a local or anonymous class is
	 * written in, names the locked method in its {@code @UnlockedSelfCall}.
	 */
	private static boolean isDeclaredDeliberate(Map<String, SelfCallSites> sitesByClass, SelfCallSites sites, Site site,
			String lockedName) {
		SelfCallSites current = sites;
		String method = SelfCallSites.methodKey(site.caller(), site.callerDescriptor());
		for (int depth = 0; depth < MAX_NESTING; depth++) {
			if (current.markers().getOrDefault(method, List.of()).contains(lockedName)) {
				return true;
			}
			String parent = current.lambdaParents().get(method);
			if (parent != null) {
				method = parent;
				continue;
			}
			SelfCallSites outer = (current.outerClass() != null) ? sitesByClass.get(current.outerClass()) : null;
			if (outer == null || current.enclosingMethod() == null) {
				return false;
			}
			method = current.enclosingMethod();
			current = outer;
		}
		return false;
	}

	/**
	 * The caller as a reader finds it in the source: a lambda as the method it is written
	 * in, an inner class's call as made on the enclosing instance.
	 */
	private static String caller(Map<String, SelfCallSites> sitesByClass, SelfCallSites sites, Site site) {
		StringBuilder caller = new StringBuilder();
		String enclosing = site.enclosingType();
		String receiver = (enclosing != null) ? simpleName(enclosing.replace('/', '.')) + ".this" : "this";
		if (site.methodReference()) {
			caller.append("the method reference ").append(receiver).append("::").append(site.name()).append(" in ");
		}
		caller.append(method(sites, SelfCallSites.methodKey(site.caller(), site.callerDescriptor())));
		String outerClass = sites.outerClass();
		String enclosingMethod = sites.enclosingMethod();
		SelfCallSites outer = (outerClass != null) ? sitesByClass.get(outerClass) : null;
		if (outer != null && enclosingMethod != null) {
			caller.append(" (in a class written in ").append(method(outer, enclosingMethod)).append(')');
		}
		if (enclosing != null && !site.methodReference()) {
			caller.append(", on ").append(receiver);
		}
		return caller.toString();
	}

	private static String method(SelfCallSites sites, String method) {
		String prefix = "";
		for (int depth = 0; depth < MAX_NESTING && sites.lambdaParents().containsKey(method); depth++) {
			prefix = "a lambda in ";
			method = sites.lambdaParents().get(method);
		}
		int descriptorStart = method.indexOf('(');
		String name = method.substring(0, descriptorStart);
		StringBuilder text = new StringBuilder(prefix);
		String className = sites.className().replace('/', '.');
		if (name.equals("<init>")) {
			text.append("the constructor ").append(className);
		}
		else {
			text.append(className).append('.').append(name);
		}
		text.append('(');
		Type[] parameters = Type.getArgumentTypes(method.substring(descriptorStart));
		for (int i = 0; i < parameters.length; i++) {
			text.append((i > 0) ? ", " : "").append(simpleName(parameters[i].getClassName()));
		}
		return text.append(')').toString();
	}

	private static String simpleName(String className) {
		String name = className.substring(className.lastIndexOf('.') + 1);
		return name.substring(name.lastIndexOf('$') + 1);
	}

	private static String location(SelfCallSites sites, Site site) {
		String file = (sites.sourceFile() != null) ? sites.sourceFile()
				: simpleName(sites.className().replace('/', '.')) + ClassUtils.CLASS_FILE_SUFFIX;
		return (site.line() > 0) ? file + ":" + site.line() : file + ", line unknown";
	}

	/**
	 * The class files of a class and its inner classes, read for some method names.
	 */
	private static final class ClassFiles {

		final Set<String> names;

		final List<SelfCallSites> sites;

		ClassFiles(Set<String> names, List<SelfCallSites> sites) {
			this.names = names;
			this.sites = sites;
		}

	}

	/**
	 * The methods a call on the bean reaches, found once per name and descriptor.
	 */
	private static final class Methods {

		private final Class<?> beanClass;

		private final Map<String, Class<?>> hierarchy;

		private final Set<String> names;

		private @Nullable Map<String, Method> dispatched;

		Methods(Class<?> beanClass, Map<String, Class<?>> hierarchy, Set<String> names) {
			this.beanClass = beanClass;
			this.hierarchy = hierarchy;
			this.names = names;
		}

		/**
		 * The method a virtual call reaches on the bean's class: the most specific
		 * declaration, else an interface's default method.
		 */
		@Nullable Method dispatched(String name, String descriptor) {
			Map<String, Method> methods = this.dispatched;
			if (methods == null) {
				methods = new HashMap<>();
				for (Class<?> type = this.beanClass; type != null; type = type.getSuperclass()) {
					addInstanceMethods(type, methods);
				}
				for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(this.beanClass)) {
					addInstanceMethods(type, methods);
				}
				this.dispatched = methods;
			}
			return methods.get(name + descriptor);
		}

		private void addInstanceMethods(Class<?> type, Map<String, Method> methods) {
			for (Method method : type.getDeclaredMethods()) {
				int modifiers = method.getModifiers();
				if (this.names.contains(method.getName()) && !Modifier.isStatic(modifiers)
						&& !Modifier.isPrivate(modifiers) && !Modifier.isAbstract(modifiers)) {
					methods.putIfAbsent(method.getName() + Type.getMethodDescriptor(method), method);
				}
			}
		}

		/**
		 * The method a {@code super.m()} call names: declared in the named class or
		 * inherited by it.
		 */
		@Nullable Method declared(String owner, String name, String descriptor) {
			Class<?> start = this.hierarchy.get(owner);
			if (start == null) {
				return null;
			}
			List<Class<?>> types = new ArrayList<>();
			for (Class<?> type = start; type != null; type = type.getSuperclass()) {
				types.add(type);
			}
			types.addAll(ClassUtils.getAllInterfacesForClassAsSet(start));
			for (Class<?> type : types) {
				for (Method method : type.getDeclaredMethods()) {
					if (method.getName().equals(name) && !Modifier.isStatic(method.getModifiers())
							&& Type.getMethodDescriptor(method).equals(descriptor)) {
						return method;
					}
				}
			}
			return null;
		}

	}

}
